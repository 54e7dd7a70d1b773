// Checks a request body in the browser with the API's own rules: the ajv validators compiled at
// build time from the generated OpenAPI document, by operationId. Their errors become words under
// the field they concern; never a validator path or a pattern.
import * as compiled from 'virtual:request-validators';
import type { operations } from '../../../generated/dashboard';
import { wordsFor, type AjvError } from './words';

export type OperationId = keyof operations;

type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

const validators = compiled as unknown as Record<string, Validate | undefined>;

/** One problem: the field's dotted path (`fields.0.name`, '' for the whole body) and words. */
export interface Problem {
  path: string;
  message: string;
}

/** Every problem of `body` for `operationId`, at most one per field (the first rule it breaks). */
export function problemsOf(operationId: OperationId, body: unknown): Problem[] {
  const validate = validators[operationId];
  if (!validate) throw new Error(`No request validator for ${operationId}`);
  if (validate(body)) return [];
  const errors = validate.errors ?? [];
  // A rule across fields (`anyOf`/`oneOf`, worded by the schema's x-problem) is one problem of the
  // object it concerns; what its branches said one by one is not shown.
  const composed = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inBranch = (e: AjvError) =>
    composed.some((c) => c !== e && c.schemaPath && e.schemaPath?.startsWith(`${c.schemaPath}/`));
  const seen = new Map<string, string>();
  for (const error of errors) {
    if (inBranch(error) || error.keyword === 'if' || error.keyword === 'not') continue;
    const base = error.instancePath.split('/').filter(Boolean).join('.');
    const missing = error.keyword === 'required' ? String(error.params.missingProperty) : '';
    const path = [base, missing].filter(Boolean).join('.');
    const problem = error.parentSchema?.['x-problem'];
    const words = composed.includes(error)
      ? typeof problem === 'string'
        ? `${problem}.`
        : 'Not accepted.'
      : wordsFor(error);
    if (!seen.has(path)) seen.set(path, words);
  }
  return [...seen].map(([path, message]) => ({ path, message }));
}
