// Forms on React Hook Form with the API's schemas: a resolver that validates the request body an
// operation will send (all problems at once, each under its field), the API's own refusals put
// under the field they name, and the one form-level message for anything else.
import type { FieldErrors, FieldValues, Resolver, UseFormReturn } from 'react-hook-form';
import { ApiFailure, errorText } from '../api';
import { problemsOf, type OperationId } from './validate';

function nest<T extends FieldValues>(problems: { path: string; message: string }[]): FieldErrors<T> {
  const errors: Record<string, unknown> = {};
  for (const { path, message } of problems) {
    const keys = (path || 'root.schema').split('.');
    let at = errors;
    keys.forEach((key, i) => {
      if (i === keys.length - 1) at[key] = { type: 'schema', message };
      else at = (at[key] ??= /^\d+$/.test(keys[i + 1]!) ? [] : {}) as Record<string, unknown>;
    });
  }
  return errors as FieldErrors<T>;
}

/**
 * A resolver checking `toBody(values)` against `operationId`'s request schema. Paths of the body
 * are the form's field names; a problem on a field the form does not show goes to the form.
 */
export function apiResolver<T extends FieldValues>(
  operationId: OperationId,
  toBody: (values: T) => unknown = (v) => v,
  shown?: (path: string) => boolean,
): Resolver<T> {
  return async (values) => {
    const problems = problemsOf(operationId, toBody(values)).map((p) =>
      shown && !shown(p.path) ? { path: '', message: p.message } : p,
    );
    return problems.length ? { values: {}, errors: nest<T>(problems) } : { values, errors: {} };
  };
}

/** Puts a refused call's messages where they belong: under the fields it names, else on the form. */
export function showFailure<T extends FieldValues>(
  form: UseFormReturn<T>,
  error: unknown,
  fields: readonly string[],
): void {
  const failure = error instanceof ApiFailure ? error : undefined;
  let placed = false;
  for (const detail of failure?.details ?? []) {
    if (fields.includes(detail.path)) {
      form.setError(detail.path as never, { type: 'server', message: detail.message });
      placed = true;
    }
  }
  if (!placed) form.setError('root.server', { type: 'server', message: errorText(error) });
}

/** The form's own message (a refusal that names no field shown, or a problem of the whole body). */
export function FormMessage({ errors }: { errors: FieldErrors }) {
  const message = errors.root?.server?.message ?? errors.root?.schema?.message;
  if (!message) return null;
  return (
    <div className="error" role="alert">
      {message}
    </div>
  );
}
