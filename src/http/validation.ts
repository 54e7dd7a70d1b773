// Turns openapi-backend (ajv) errors into the `details` of the error envelope, and a message of
// the form `Validation failed: <field> <problem>`. Raw validator output is never sent.
import type { ErrorObject } from 'ajv';
import { validationFailed, type ApiError, type ErrorDetail } from './errors.js';

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
    case 'parse':
      return { field: segments, problem: `is not valid JSON (${error.message ?? 'parse error'})` };
    default:
      return { field: segments, problem: error.message ?? 'is invalid' };
  }
}

const articled = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

export function toValidationError(errors: ErrorObject[]): ApiError {
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
