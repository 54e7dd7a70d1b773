// The words for a broken rule of the API's schemas: the schema's own x-error-message, else the
// rule of the keyword ("Required.", "At least 8 characters."). Pure, so it is unit-tested.

/** The part of an ajv error (compiled with `verbose`) the words are made from. */
export interface AjvError {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
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
