// The definition file checked against the schema the package ships (schema/, made from the API's
// own schemas by scripts/generate.ts) before any request: a wrong type, a misspelt property or a
// syntax error is named by file, line, column and path (`collections.products.fields.weight.type`)
// instead of reaching the server half-way through a push, or being dropped without a word.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { JsonSyntaxError, lineColumn, pointerSegment, positions, type Position } from './json-source.js';
import { CliError, EXIT } from './settings.js';

const SCHEMA_FILE = new URL('../schema/project-config.schema.json', import.meta.url);
/** Enough to fix a file in one go without burying the first problem. */
const MAX_REPORTED = 8;

let compiled: ValidateFunction | undefined;
function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    compiled = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
  }
  return compiled;
}

const segments = (pointer: string) =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));

/** A pointer as people read it: array items by their `name` where they have one, else `[i]`. */
function readablePath(data: unknown, pointer: string): string {
  let node = data;
  let out = '';
  for (const segment of segments(pointer)) {
    if (Array.isArray(node)) {
      const item: unknown = node[Number(segment)];
      const name = (item as { name?: unknown } | undefined)?.name;
      out += typeof name === 'string' && name ? `.${name}` : `[${segment}]`;
      node = item;
    } else {
      out += out ? `.${segment}` : segment;
      node = (node as Record<string, unknown> | undefined)?.[segment];
    }
  }
  return out || '(the whole file)';
}

/**
 * oneOf branches whose `type` did not match are noise: keep the errors of the branch meant, and
 * when no branch's `type` matched, say which types there are.
 */
function meantErrors(errors: ErrorObject[]): ErrorObject[] {
  const branchOf = (e: ErrorObject) => /^(.*\/oneOf\/\d+)\//.exec(e.schemaPath)?.[1];
  const wrong = errors
    .filter((e) => e.keyword === 'enum' && e.instancePath.endsWith('/type') && branchOf(e))
    .map((e) => ({ branch: branchOf(e)!, at: e.instancePath.slice(0, -'/type'.length), error: e }));
  const isWrong = (e: ErrorObject) => {
    const branch = branchOf(e);
    return wrong.some((w) => w.branch === branch && (e.instancePath + '/').startsWith(w.at + '/'));
  };
  const kept = errors.filter((e) => !isWrong(e));
  // The name rule's own error says more than the propertyNames one that wraps it.
  const named = new Set(
    kept
      .filter((e) => e.propertyName !== undefined && e.keyword !== 'propertyNames')
      .map((e) => e.instancePath),
  );
  const out = kept.filter(
    (e) =>
      e.keyword !== 'oneOf' &&
      e.keyword !== 'anyOf' &&
      !(e.keyword === 'propertyNames' && named.has(e.instancePath)),
  );
  for (const e of kept.filter((k) => k.keyword === 'oneOf')) {
    const branches = wrong.filter((w) => w.at === e.instancePath && w.branch.startsWith(e.schemaPath));
    if (branches.length === 0 || out.some((o) => o.instancePath.startsWith(e.instancePath))) {
      if (branches.length === 0) out.push(e);
      continue;
    }
    const allowedValues = branches.flatMap(
      (w) => (w.error.params as { allowedValues: unknown[] }).allowedValues,
    );
    out.push({ ...branches[0]!.error, params: { allowedValues } });
  }
  return out.length > 0 ? out : errors;
}

function describe(e: ErrorObject): { pointer: string; atKey: boolean; message: string } {
  const p = e.params as Record<string, unknown>;
  // An error of a name rule (propertyNames) names the key it refused.
  if (e.propertyName !== undefined && e.keyword !== 'propertyNames')
    return {
      pointer: `${e.instancePath}/${pointerSegment(e.propertyName)}`,
      atKey: true,
      message: `not an allowed name: ${e.message ?? e.keyword}`,
    };
  switch (e.keyword) {
    case 'additionalProperties':
      return {
        pointer: `${e.instancePath}/${pointerSegment(String(p.additionalProperty))}`,
        atKey: true,
        message: 'unknown property',
      };
    case 'propertyNames':
      return {
        pointer: `${e.instancePath}/${pointerSegment(String(p.propertyName))}`,
        atKey: true,
        message: 'not an allowed name',
      };
    case 'required':
      return { pointer: e.instancePath, atKey: false, message: `missing "${String(p.missingProperty)}"` };
    case 'enum':
      return {
        pointer: e.instancePath,
        atKey: false,
        message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'not':
      return {
        pointer: e.instancePath,
        atKey: false,
        message: e.instancePath.endsWith('/trigger')
          ? '`collection` goes with the six collection triggers, `access` with callable, `cron` with schedule (each required there, refused elsewhere)'
          : 'holds properties that do not go together',
      };
    default:
      return { pointer: e.instancePath, atKey: false, message: e.message ?? e.keyword };
  }
}

/** Parses the definition file's text, or throws a CliError naming each problem by file:line:column and path. */
export function checkDefinition(file: string, raw: string): unknown {
  const text = raw.replace(/^\uFEFF/, '');
  const where = (offset: number) => {
    const { line, column } = lineColumn(text, offset);
    return `${file}:${line}:${column}`;
  };
  let found: Map<string, Position>;
  try {
    found = positions(text);
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    throw new CliError(`${where(err.offset)}: not valid JSON: ${err.message}`, EXIT.usage);
  }
  const data: unknown = JSON.parse(text);
  const validate = validator();
  if (validate(data)) return data;
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const error of meantErrors(validate.errors ?? [])) {
    const { pointer, atKey, message } = describe(error);
    let known = pointer;
    while (!found.has(known) && known) known = known.slice(0, known.lastIndexOf('/'));
    const position = found.get(known)!;
    const line = `${where(atKey ? (position.key ?? position.value) : position.value)}: ${readablePath(data, pointer)}: ${message}`;
    if (!seen.has(line)) lines.push(line);
    seen.add(line);
  }
  const shown = lines.slice(0, MAX_REPORTED);
  if (lines.length > shown.length) shown.push(`... and ${lines.length - shown.length} more`);
  throw new CliError(
    `${file} does not match the definition schema (nothing was sent):\n  ${shown.join('\n  ')}`,
    EXIT.usage,
  );
}
