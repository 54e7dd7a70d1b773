// Aggregation pipelines from clients (DECISIONS §3): an allowlist of stages, `$out`/`$merge`
// blocked, `$where`/`$function`/`$accumulator` refused anywhere, `$lookup` only into registered
// collections of the project other than `users` (also inside `$facet` and sub-pipelines), and the
// guard `$match` stages (trash, RLS owner) put in front of the client's stages. Costly shapes are
// capped before the pipeline runs: regular expressions, the number and nesting of `$lookup`s and
// `$range` lengths (a computed bound is capped in the pipeline itself); the result's size is
// capped while it is read, in reads.ts.
import { badRequest } from '../../http/errors.js';
import { userRegexProblem } from '../../lib/user-regex.js';
import { MAX_BODY_DEPTH } from '../schema/field-names.js';
import { MAX_REGEX_LENGTH, type Condition } from './filters.js';
import { USERS_COLLECTION } from './access.js';

export const ALLOWED_STAGES: ReadonlySet<string> = new Set([
  '$match',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$group',
  '$sort',
  '$limit',
  '$skip',
  '$count',
  '$unwind',
  '$facet',
  '$bucket',
  '$bucketAuto',
  '$sortByCount',
  '$replaceRoot',
  '$replaceWith',
  '$sample',
  '$geoNear',
  '$lookup',
]);
const BLOCKED_STAGES: ReadonlySet<string> = new Set(['$out', '$merge']);
const FORBIDDEN_OPERATORS: ReadonlySet<string> = new Set(['$where', '$function', '$accumulator']);
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/** The BSON serializer reads an object carrying it as a driver value (an ObjectId, a Long...), not a document. */
const BSON_TYPE_KEY = '_bsontype';
const LOOKUP_KEYS: ReadonlySet<string> = new Set([
  'from',
  'localField',
  'foreignField',
  'as',
  'let',
  'pipeline',
]);
/** Operators whose `regex` argument is a pattern (the `$regex` query operator takes it directly). */
const REGEX_EXPRESSIONS: ReadonlySet<string> = new Set(['$regexMatch', '$regexFind', '$regexFindAll']);
/** `$lookup` stages per pipeline, counting those inside `$facet` and sub-pipelines. */
export const MAX_LOOKUPS = 10;
/** A `$lookup` inside a `$lookup`'s pipeline is level 2; deeper ones are refused. */
export const MAX_LOOKUP_DEPTH = 2;
/** Elements of a `$range`: refused when its bounds are literal, capped in the pipeline otherwise. */
export const MAX_RANGE_LENGTH = 10_000;
/** Stages that must come first; the guards go right after them. */
const LEADING_STAGES: ReadonlySet<string> = new Set(['$geoNear', '$search']);

export type Stage = Record<string, unknown>;

/** A `$lookup` found in the pipeline, to be checked and guarded once its target is known. */
export interface LookupStage {
  from: string;
  spec: Record<string, unknown>;
}

const invalid = (message: string, code = 'INVALID_PIPELINE') => badRequest(message, undefined, code);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkPattern(pattern: unknown, operator: string, where: string): void {
  // A string starting with "$" would be read as a field path: the pattern must be given here.
  if (typeof pattern !== 'string' || pattern.startsWith('$')) {
    throw invalid(
      `Invalid pipeline: ${where} ${operator} takes the pattern as a literal string`,
      'INVALID_REGEX',
    );
  }
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw invalid(
      `Invalid pipeline: ${where} ${operator} pattern is longer than ${MAX_REGEX_LENGTH} characters`,
      'INVALID_REGEX',
    );
  }
  // The database runs it, but the rule is the filters' and the streams' one: RE2's syntax.
  const problem = userRegexProblem(pattern);
  if (problem) throw invalid(`Invalid pipeline: ${where} ${operator} has an ${problem}`, 'INVALID_REGEX');
}

/**
 * A `$range` with literal bounds may not produce more than MAX_RANGE_LENGTH elements; one with a
 * computed bound gets its end capped at MAX_RANGE_LENGTH steps from its start (rewritten in place),
 * which needs a literal step.
 */
function checkRange(holder: Record<string, unknown>, where: string): void {
  const args = holder.$range;
  if (!Array.isArray(args) || args.length < 2 || args.length > 3) return; // the database refuses it
  const [start, end, step = 1] = args as unknown[];
  if (typeof step !== 'number') throw rangeStep(where);
  if (!Number.isInteger(step) || step === 0) return; // the database refuses it
  if (typeof start === 'number' && typeof end === 'number') {
    const length = Math.ceil((end - start) / step);
    if (length > MAX_RANGE_LENGTH) {
      throw invalid(
        `Invalid pipeline: ${where} $range would produce ${length} elements (at most ${MAX_RANGE_LENGTH})`,
        'PIPELINE_TOO_COSTLY',
      );
    }
    return;
  }
  const furthest = { $add: [start, MAX_RANGE_LENGTH * step] };
  holder.$range = [start, { [step > 0 ? '$min' : '$max']: [end, furthest] }, step];
}

const rangeStep = (where: string) =>
  invalid(`Invalid pipeline: ${where} $range takes its step as a literal integer`, 'PIPELINE_TOO_COSTLY');

/** Refuses the forbidden operators and prototype keys at any depth of a stage, and checks patterns and ranges. */
function scan(value: unknown, where: string, depth: number): void {
  if (depth > MAX_BODY_DEPTH) throw invalid(`Invalid pipeline: ${where} is nested too deeply`);
  if (Array.isArray(value)) {
    for (const item of value) scan(item, where, depth + 1);
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_OPERATORS.has(key)) {
        throw invalid(`Operator ${key} is not allowed in aggregation pipelines`, 'OPERATOR_NOT_ALLOWED');
      }
      if (PROTOTYPE_KEYS.has(key)) throw invalid(`Invalid pipeline: the key "${key}" is not allowed`);
      if (key === BSON_TYPE_KEY) {
        throw invalid(
          `Invalid pipeline: ${where} uses the key "${key}", which is reserved`,
          'INVALID_FIELD_NAME',
        );
      }
      if (key === '$regex') checkPattern(value[key], key, where);
      if (REGEX_EXPRESSIONS.has(key)) {
        const args = value[key];
        checkPattern(isObject(args) ? args.regex : undefined, key, where);
      }
      if (key === '$range') checkRange(value, where);
      scan(value[key], where, depth + 1);
    }
  }
}

function checkLookup(
  spec: unknown,
  where: string,
  lookups: LookupStage[],
  depth: number,
  lookupDepth: number,
): void {
  if (!isObject(spec)) throw invalid(`Invalid pipeline: ${where} $lookup must be an object`);
  if (lookupDepth > MAX_LOOKUP_DEPTH) {
    throw invalid(
      `Invalid pipeline: ${where} nests $lookup more than ${MAX_LOOKUP_DEPTH} levels deep`,
      'PIPELINE_TOO_COSTLY',
    );
  }
  for (const key of Object.keys(spec)) {
    if (!LOOKUP_KEYS.has(key)) throw invalid(`Invalid pipeline: ${where} $lookup does not take "${key}"`);
  }
  const from = spec.from;
  if (typeof from !== 'string' || from === '') {
    throw invalid(
      `$lookup may only read a collection of this project, named by a string in "from" (${where})`,
      'LOOKUP_NOT_ALLOWED',
    );
  }
  if (from === USERS_COLLECTION) {
    throw invalid('$lookup into the users collection is not allowed', 'LOOKUP_NOT_ALLOWED');
  }
  if (spec.pipeline !== undefined) {
    if (!Array.isArray(spec.pipeline))
      throw invalid(`Invalid pipeline: ${where} $lookup.pipeline must be an array`);
    walk(spec.pipeline, `${where} $lookup.pipeline`, lookups, depth + 1, lookupDepth);
  }
  lookups.push({ from, spec });
  if (lookups.length > MAX_LOOKUPS) {
    throw invalid(`Invalid pipeline: at most ${MAX_LOOKUPS} $lookup stages`, 'PIPELINE_TOO_COSTLY');
  }
}

function walk(
  pipeline: unknown[],
  where: string,
  lookups: LookupStage[],
  depth: number,
  lookupDepth = 0,
): void {
  if (depth > 8) throw invalid(`Invalid pipeline: sub-pipelines are nested too deeply (${where})`);
  pipeline.forEach((stage, i) => {
    const at = `${where} stage ${i}`.trim();
    const keys = isObject(stage) ? Object.keys(stage) : [];
    if (keys.length !== 1)
      throw invalid(`Invalid pipeline: ${at} must be an object with exactly one stage operator`);
    const name = keys[0]!;
    const body = (stage as Stage)[name];
    if (BLOCKED_STAGES.has(name)) {
      throw invalid(
        `Pipeline stage ${name} is blocked: aggregations cannot write to collections`,
        'BLOCKED_STAGE',
      );
    }
    if (!ALLOWED_STAGES.has(name))
      throw invalid(`Pipeline stage ${name} is not allowed`, 'STAGE_NOT_ALLOWED');
    scan(body, at, depth);
    if (name === '$lookup') checkLookup(body, at, lookups, depth, lookupDepth + 1);
    if (name === '$facet') {
      if (!isObject(body)) throw invalid(`Invalid pipeline: ${at} $facet must be an object`);
      for (const [facet, sub] of Object.entries(body)) {
        if (!Array.isArray(sub)) throw invalid(`Invalid pipeline: ${at} $facet.${facet} must be an array`);
        walk(sub, `${at} $facet.${facet}`, lookups, depth + 1, lookupDepth);
      }
    }
  });
}

/** Checks a client pipeline; returns its `$lookup` stages (the objects themselves, to guard). */
export function checkPipeline(pipeline: unknown): LookupStage[] {
  if (!Array.isArray(pipeline)) throw invalid('Invalid pipeline: pipeline must be an array');
  const lookups: LookupStage[] = [];
  walk(pipeline, '', lookups, 0);
  return lookups;
}

/** Puts `guard` in front of a `$lookup`'s own pipeline (joined documents obey the same rules). */
export function guardLookup(lookup: LookupStage, guard: Condition | undefined): void {
  if (!guard) return;
  const own = Array.isArray(lookup.spec.pipeline) ? (lookup.spec.pipeline as Stage[]) : [];
  lookup.spec.pipeline = [{ $match: guard }, ...own];
}

/** The pipeline with `guard` as a `$match` at the start, or right after a leading `$geoNear`. */
export function withGuard(pipeline: Stage[], guard: Condition | undefined): Stage[] {
  if (!guard) return pipeline;
  const first = pipeline[0] ? Object.keys(pipeline[0])[0] : undefined;
  const at = first && LEADING_STAGES.has(first) ? 1 : 0;
  return [...pipeline.slice(0, at), { $match: guard }, ...pipeline.slice(at)];
}
