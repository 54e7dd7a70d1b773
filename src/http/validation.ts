// Turns openapi-backend (ajv) errors into the `details` of the error envelope, and a message of
// the form `Validation failed: <field> <problem>`. Raw validator output is never sent.
import type { ErrorObject } from 'ajv';
import { badRequest, validationFailed, type ApiError, type ErrorDetail } from './errors.js';

/** The pattern of the spec's ObjectId schema (openapi/components.yaml), which every path id uses. */
const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';

/** The pattern of the spec's FilePath schema: a path as upload-request issues it. */
const FILE_PATH_PATTERN =
  '^[0-9a-f]{24}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}_[A-Za-z0-9](?:[A-Za-z0-9_-]|\\.[A-Za-z0-9_-])*\\.?$';
const FILE_PATH_MESSAGE =
  'Invalid file path: expected "<project_id>/<file name>" as returned by upload-request';

/** Patterns of the documents said in words. */
const PATTERN_WORDS: Record<string, string> = {
  [OBJECT_ID_PATTERN]: 'must be an object id of 24 hex characters',
  '\\S': 'must not be blank',
};

/**
 * Keywords whose failure a schema may word itself with `x-problem` (a rule across fields:
 * "either templateName or templateId, not both"); ajv runs with `verbose`, so the error carries
 * the schema it failed.
 */
const WORDED = new Set(['not', 'anyOf', 'oneOf', 'minProperties']);

function wordedProblem(error: ErrorObject): string | undefined {
  if (!WORDED.has(error.keyword)) return undefined;
  const problem = (error.parentSchema as Record<string, unknown> | undefined)?.['x-problem'];
  return typeof problem === 'string' ? problem : undefined;
}

/**
 * A malformed id in the path keeps the answer its resource gave before the spec said so: clients
 * match these codes. Other ids (webhooks, deliveries, sessions) get the generic validation error.
 */
const ID_ERRORS: Record<string, [message: string, code: string]> = {
  projectId: ['Invalid project ID', 'INVALID_PROJECT_ID'],
  userId: ['Invalid user ID', 'INVALID_USER_ID'],
  developerId: ['Invalid developer ID', 'INVALID_DEVELOPER_ID'],
  id: ['Invalid document ID', 'INVALID_ID'],
};

const LOCATIONS: Record<string, string> = {
  requestBody: 'body',
  query: 'query',
  path: 'params',
  header: 'header',
  cookie: 'cookie',
};

function describe(error: ErrorObject): { field: string[]; problem: string } {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field: [...segments, String(params.missingProperty)], problem: 'is required' };
    case 'additionalProperties':
      return { field: [...segments, String(params.additionalProperty)], problem: 'is not allowed' };
    case 'type':
      return { field: segments, problem: `must be ${articled(String(params.type))}` };
    case 'enum':
      return {
        field: segments,
        problem: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'format':
      return { field: segments, problem: `must be a valid ${String(params.format)}` };
    case 'pattern':
      return {
        field: segments,
        problem: PATTERN_WORDS[String(params.pattern)] ?? error.message ?? 'is invalid',
      };
    case 'maxItems':
      return { field: segments, problem: `must hold at most ${items(Number(params.limit))}` };
    case 'minItems':
      return { field: segments, problem: `must hold at least ${items(Number(params.limit))}` };
    case 'parse':
      return { field: segments, problem: `is not valid JSON (${error.message ?? 'parse error'})` };
    default:
      return { field: segments, problem: error.message ?? 'is invalid' };
  }
}

const items = (n: number) => (n === 1 ? '1 item' : `${n} items`);
const articled = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

export function toValidationError(errors: ErrorObject[]): ApiError {
  const badPath = errors.find(
    (e) => e.keyword === 'pattern' && (e.params as { pattern?: string }).pattern === FILE_PATH_PATTERN,
  );
  if (badPath) {
    const path = `body.${badPath.instancePath.split('/').pop()}`;
    return badRequest(FILE_PATH_MESSAGE, [{ path, message: FILE_PATH_MESSAGE }], 'INVALID_PATH');
  }
  const badId = errors.find(
    (e) =>
      e.keyword === 'pattern' &&
      e.instancePath.startsWith('/path/') &&
      (e.params as { pattern?: string }).pattern === OBJECT_ID_PATTERN,
  );
  if (badId) {
    const name = badId.instancePath.slice('/path/'.length);
    const [message, code] = ID_ERRORS[name] ?? [];
    const detail = { path: `params.${name}`, message: `${name} must be an object id of 24 hex characters` };
    if (message && code) return badRequest(message, [detail], code);
    return validationFailed(`Validation failed: ${detail.message}`, [detail]);
  }
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  let first = '';
  // A worded rule stands for the errors of its branches.
  const worded = errors.filter((e) => wordedProblem(e) !== undefined);
  for (const error of worded) {
    const [location = '', ...rest] = error.instancePath.split('/').slice(1);
    const where = LOCATIONS[location] ?? location;
    const message = wordedProblem(error)!;
    if (seen.has(message)) continue;
    seen.add(message);
    details.push({ path: rest.length ? `${where}.${rest.join('.')}` : where || 'body', message });
    first ||= message;
  }
  const branchOfWorded = (e: ErrorObject) => worded.some((w) => e.schemaPath.startsWith(`${w.schemaPath}/`));
  for (const error of errors) {
    if (worded.includes(error) || branchOfWorded(error)) continue;
    // oneOf/anyOf repeat their branches' errors; the branch errors are the useful ones.
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'if') continue;
    const { field, problem } = describe(error);
    const [location = '', ...rest] = field;
    const where = LOCATIONS[location] ?? location;
    const name = rest.join('.');
    const path = name ? `${where}.${name}` : where || 'body';
    const message = `${where === 'body' ? name || 'body' : path} ${problem}`;
    if (seen.has(message)) continue;
    seen.add(message);
    details.push({ path, message });
    first ||= message;
  }
  // A worded rule is a sentence of its own.
  if (worded.length > 0) return validationFailed(first, details);
  return validationFailed(`Validation failed: ${first || 'request is invalid'}`, details);
}
