// Checks a request body in the browser with the API's own rules: the ajv validators compiled at
// build time from the generated OpenAPI document, by operationId. Their errors become words under
// the field they concern; never a validator path or a pattern.
import * as compiled from 'virtual:request-validators';
import type { operations } from '../../../generated/dashboard';

export type OperationId = keyof operations;

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}
type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

const validators = compiled as unknown as Record<string, Validate | undefined>;

/** One problem: the field's dotted path (`fields.0.name`, '' for the whole body) and words. */
export interface Problem {
  path: string;
  message: string;
}

const FORMATS: Record<string, string> = {
  email: 'Enter an email address, like ada@example.com.',
  uri: 'Enter a full address, like https://example.com/hook.',
  url: 'Enter a full address, like https://example.com/hook.',
  'date-time': 'Enter a date and time.',
  hostname: 'Enter a host name, like smtp.example.com.',
};

const list = (values: unknown) => (Array.isArray(values) ? values.map(String).join(', ') : String(values));

/** The words for one ajv error: the schema's own x-error-message first, then the keyword's rule. */
export function wordsFor(error: AjvError): string {
  const schema = error.parentSchema ?? {};
  const own = schema['x-error-message'];
  const p = error.params;
  // An empty text box is missing, whatever rule of its schema names it first.
  if (error.data === '' && ['minLength', 'pattern', 'format', 'type'].includes(error.keyword))
    return 'Required.';
  switch (error.keyword) {
    case 'required':
      return 'Required.';
    case 'minLength':
      return p.limit === 1 ? 'Required.' : `At least ${String(p.limit)} characters.`;
    case 'maxLength':
      return `At most ${String(p.limit)} characters.`;
    case 'pattern':
      return typeof own === 'string' ? own : 'Not in the expected form.';
    case 'format':
      return typeof own === 'string' ? own : (FORMATS[String(p.format)] ?? 'Not in the expected form.');
    case 'type':
      return p.type === 'integer' || p.type === 'number' ? 'Enter a number.' : `Must be ${list(p.type)}.`;
    case 'enum':
      return `Choose one of: ${list(schema.enum)}.`;
    case 'minimum':
      return `At least ${String(p.limit)}.`;
    case 'maximum':
      return `At most ${String(p.limit)}.`;
    case 'minItems':
      return p.limit === 1 ? 'Choose at least one.' : `Choose at least ${String(p.limit)}.`;
    case 'maxItems':
      return `At most ${String(p.limit)} items.`;
    case 'uniqueItems':
      return 'Each value only once.';
    case 'additionalProperties':
      return `Unknown field ${String(p.additionalProperty)}.`;
    default:
      return typeof own === 'string' ? own : 'Not accepted.';
  }
}

/** Every problem of `body` for `operationId`, at most one per field (the first rule it breaks). */
export function problemsOf(operationId: OperationId, body: unknown): Problem[] {
  const validate = validators[operationId];
  if (!validate) throw new Error(`No request validator for ${operationId}`);
  if (validate(body)) return [];
  const seen = new Map<string, string>();
  for (const error of validate.errors ?? []) {
    // Composition keywords repeat what their branches said.
    if (['anyOf', 'oneOf', 'if', 'not'].includes(error.keyword)) continue;
    const base = error.instancePath.split('/').filter(Boolean).join('.');
    const missing = error.keyword === 'required' ? String(error.params.missingProperty) : '';
    const path = [base, missing].filter(Boolean).join('.');
    if (!seen.has(path)) seen.set(path, wordsFor(error));
  }
  return [...seen].map(([path, message]) => ({ path, message }));
}
