// The Query Builder's answer checked by the data API's own parsers before it is returned (it is
// never run here): either list filters (`parseFilters`, `parseListOptions`) or a pipeline
// (`checkPipeline`, registered `$lookup` targets), with the fields of a schema collection checked
// against its definition. Whatever fails is a 502 naming the problem.
import { parseFilters, RESERVED_PARAMS } from '../data/filters.js';
import { parseListOptions } from '../data/query.js';
import { checkPipeline, type Stage } from '../data/pipeline.js';
import { resolvePath } from '../data/field-paths.js';
import type { DefinitionLookup } from '../data/access.js';
import type { CollectionDef } from '../types.js';
import { asModelProblem, invalidOutput, isRecord } from './model-output.js';

const WHAT = 'query';
const MAX_EXPLANATION = 1000;
/** Stages after which documents no longer have the collection's fields. */
const RESHAPING = new Set([
  '$project',
  '$group',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
  '$facet',
  '$bucket',
  '$bucketAuto',
  '$count',
  '$sortByCount',
  '$lookup',
  '$unwind',
]);

export type BuiltQuery =
  | { type: 'filter'; params: Record<string, string>; request: string; explanation: string | null }
  | { type: 'pipeline'; pipeline: Stage[]; request: string; explanation: string | null };

/** The field names a `$match` condition reads (through `$and`/`$or`/`$nor`). */
function matchFields(condition: unknown, out: string[]): void {
  if (!isRecord(condition)) return;
  for (const [key, value] of Object.entries(condition)) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (Array.isArray(value)) value.forEach((c) => matchFields(c, out));
    } else if (!key.startsWith('$')) out.push(key);
  }
}

/** Fields of a schema collection read before the pipeline reshapes documents must exist. */
function checkPipelineFields(def: CollectionDef, pipeline: Stage[]): void {
  for (const stage of pipeline) {
    const [name, body] = Object.entries(stage)[0]!;
    if (RESHAPING.has(name)) return;
    const fields: string[] = [];
    if (name === '$match') matchFields(body, fields);
    if (name === '$sort' && isRecord(body)) fields.push(...Object.keys(body));
    for (const field of fields) {
      resolvePath(def, field, name === '$sort' ? 'sort' : 'filter', `${name} on "${field}"`);
    }
  }
}

function filterQuery(def: CollectionDef, answer: Record<string, unknown>): Record<string, string> {
  const filters = answer.filters ?? {};
  if (!isRecord(filters)) throw invalidOutput(WHAT, '"filters" must be an object of query parameters');
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(filters)) {
    if (RESERVED_PARAMS.has(key)) throw invalidOutput(WHAT, `"${key}" is not a filter`);
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      throw invalidOutput(
        WHAT,
        `filter "${key}" must be a single value (operators go in the suffix, like ${key}_gt)`,
      );
    }
    params[key] = String(value);
  }
  const options: Record<string, string> = {};
  if (answer.sort !== undefined && answer.sort !== null) {
    if (typeof answer.sort !== 'string') throw invalidOutput(WHAT, '"sort" must be a string');
    options.sort = answer.sort;
  }
  if (answer.limit !== undefined && answer.limit !== null) {
    if (!Number.isInteger(answer.limit)) throw invalidOutput(WHAT, '"limit" must be an integer');
    options.limit = String(answer.limit);
  }
  try {
    parseFilters(def, params);
    // A limit over the maximum is clamped as the data API would; the params show the real one.
    if (options.limit) options.limit = String(parseListOptions(def, options).limit);
    else parseListOptions(def, options);
  } catch (err) {
    asModelProblem(err, WHAT);
  }
  return { ...params, ...options };
}

async function pipelineQuery(
  def: CollectionDef,
  answer: Record<string, unknown>,
  definitions: DefinitionLookup,
): Promise<Stage[]> {
  const pipeline = answer.pipeline;
  try {
    const lookups = checkPipeline(pipeline);
    for (const lookup of lookups) {
      if (!(await definitions(def.projectId, lookup.from))) {
        throw invalidOutput(
          WHAT,
          `$lookup reads "${lookup.from}", which is not a collection of this project`,
        );
      }
    }
    checkPipelineFields(def, pipeline as Stage[]);
  } catch (err) {
    asModelProblem(err, WHAT);
  }
  return pipeline as Stage[];
}

export async function checkQueryAnswer(
  def: CollectionDef,
  answer: Record<string, unknown>,
  definitions: DefinitionLookup,
): Promise<BuiltQuery> {
  const explanation =
    typeof answer.explanation === 'string' ? answer.explanation.slice(0, MAX_EXPLANATION) : null;
  if (answer.type === 'filter') {
    const params = filterQuery(def, answer);
    const search = new URLSearchParams(params).toString();
    return {
      type: 'filter',
      params,
      request: `GET /api/data/${def.name}${search ? `?${search}` : ''}`,
      explanation,
    };
  }
  if (answer.type === 'pipeline') {
    const pipeline = await pipelineQuery(def, answer, definitions);
    return { type: 'pipeline', pipeline, request: `POST /api/data/${def.name}/aggregate`, explanation };
  }
  throw invalidOutput(WHAT, '"type" must be "filter" or "pipeline"');
}
