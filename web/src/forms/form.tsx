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
 * A resolver checking `toBody(values)` against `operationId`'s request schema. `fieldOf` names the
 * form field that shows a body path (the path itself by default); a problem of a path no field
 * shows goes to the form. The first problem of each field is kept.
 */
export function apiResolver<T extends FieldValues>(
  operationId: OperationId,
  toBody: (values: T) => unknown = (v) => v,
  fieldOf: (path: string) => string | undefined = (path) => path,
): Resolver<T> {
  return async (values) => {
    const placed = new Map<string, string>();
    for (const problem of problemsOf(operationId, toBody(values))) {
      const field = (problem.path && fieldOf(problem.path)) || '';
      if (!placed.has(field)) placed.set(field, problem.message);
    }
    const problems = [...placed].map(([path, message]) => ({ path, message }));
    return problems.length ? { values: {}, errors: nest<T>(problems) } : { values, errors: {} };
  };
}

/** Puts a refused call's messages where they belong: under the fields it names, else on the form. */
export function showFailure<T extends FieldValues>(
  form: UseFormReturn<T>,
  error: unknown,
  fields: readonly string[] | ((path: string) => string | undefined),
): void {
  const failure = error instanceof ApiFailure ? error : undefined;
  const fieldOf =
    typeof fields === 'function' ? fields : (path: string) => (fields.includes(path) ? path : undefined);
  let placed = false;
  for (const detail of failure?.details ?? []) {
    const field = fieldOf(detail.path);
    if (field) {
      form.setError(field as never, { type: 'server', message: detail.message });
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
