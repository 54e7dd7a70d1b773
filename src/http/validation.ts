// Turns openapi-backend (ajv) errors into the `details` of the error envelope, and a message of
// the form `Validation failed: <field> <problem>`. Raw validator output is never sent.
import type { ErrorObject } from 'ajv';
import { badRequest, validationFailed, type ApiError, type ErrorDetail } from './errors.js';

/** The pattern of the spec's ObjectId schema (openapi/components.yaml), which every path id uses. */
const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';

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
      if (params.pattern === OBJECT_ID_PATTERN)
        return { field: segments, problem: 'must be an object id of 24 hex characters' };
      return { field: segments, problem: error.message ?? 'is invalid' };
    case 'parse':
      return { field: segments, problem: `is not valid JSON (${error.message ?? 'parse error'})` };
    default:
      return { field: segments, problem: error.message ?? 'is invalid' };
  }
}

const articled = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

export function toValidationError(errors: ErrorObject[]): ApiError {
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
  for (const error of errors) {
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
  return validationFailed(`Validation failed: ${first || 'request is invalid'}`, details);
}
