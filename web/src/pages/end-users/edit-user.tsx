// Editing an end user (admins): the fields of the project's users schema (protected ones too:
// only admins and the secret key set them) and whether the email is verified. Only changed
// fields are sent; each value is checked for its type first, and the API's refusals (a value
// another user holds in a unique field, say) go under the field they name.
import { useForm } from 'react-hook-form';
import * as Dialog from '@radix-ui/react-dialog';
import type { FieldDef } from '../../api';
import { useEndUserActions, useUsersCollection, type ManagedUser } from '../../data/end-users';
import { ErrorBox, Field, FieldError, Progress } from '../../components/ui';
import { FormMessage, showFailure } from '../../forms/form';

/** What the user management refuses to set (the API answers 400 FIELD_NOT_ALLOWED). */
const NOT_EDITABLE = new Set(['email', 'password', 'identities', 'disabled', 'emailVerified']);

type Values = Record<string, string | boolean>;

const shown = (value: unknown, type: FieldDef['type']) =>
  value === undefined || value === null
    ? ''
    : type === 'Object' || type === 'Array'
      ? JSON.stringify(value, null, 2)
      : String(value);

/** The typed value of an input, or the words saying why it is not one. */
function parse(text: string, def: FieldDef): { value?: unknown; problem?: string } {
  if (text.trim() === '') return def.required ? { problem: 'Required.' } : { value: null };
  if (def.type === 'Number') {
    const n = Number(text);
    return Number.isFinite(n) ? { value: n } : { problem: 'Enter a number.' };
  }
  if (def.type === 'Object' || def.type === 'Array') {
    try {
      const value: unknown = JSON.parse(text);
      const ok =
        def.type === 'Array' ? Array.isArray(value) : typeof value === 'object' && !Array.isArray(value);
      return ok
        ? { value }
        : { problem: def.type === 'Array' ? 'Enter a JSON array: [ … ].' : 'Enter a JSON object: { … }.' };
    } catch {
      return { problem: 'Not valid JSON.' };
    }
  }
  if (def.type === 'Ref')
    return /^[0-9a-f]{24}$/.test(text.trim())
      ? { value: text.trim() }
      : { problem: 'Enter a document id (24 hexadecimal characters).' };
  if (def.type === 'Date')
    return Number.isNaN(Date.parse(text))
      ? { problem: 'Enter a date, like 2025-01-31.' }
      : { value: text.trim() };
  return { value: text };
}

export function EditUserDialog({
  projectId,
  user,
  onClose,
}: {
  projectId: string;
  user: ManagedUser;
  onClose: (saved: boolean) => void;
}) {
  const collection = useUsersCollection(projectId);
  const { update } = useEndUserActions(projectId);
  const fields = (collection.data?.fields ?? []).filter((f) => !NOT_EDITABLE.has(f.name));
  const record = user as Record<string, unknown>;
  const defaults: Values = { emailVerified: Boolean(user.emailVerified) };
  for (const f of fields)
    defaults[f.name] = f.type === 'Boolean' ? Boolean(record[f.name]) : shown(record[f.name], f.type);

  const form = useForm<Values>({
    values: defaults,
    resolver: async (values) => {
      const errors: Record<string, { type: string; message: string }> = {};
      for (const f of fields) {
        if (f.type === 'Boolean') continue;
        const problem = parse(String(values[f.name] ?? ''), f).problem;
        if (problem) errors[f.name] = { type: 'type', message: problem };
      }
      return Object.keys(errors).length ? { values: {}, errors } : { values, errors: {} };
    },
  });
  const { errors, isSubmitting, dirtyFields } = form.formState;

  const submit = form.handleSubmit(async (values) => {
    const changes: Record<string, unknown> = {};
    if (dirtyFields.emailVerified) changes.emailVerified = values.emailVerified;
    for (const f of fields) {
      if (!dirtyFields[f.name]) continue;
      changes[f.name] = f.type === 'Boolean' ? values[f.name] : parse(String(values[f.name]), f).value;
    }
    if (Object.keys(changes).length === 0) return onClose(false);
    try {
      await update.mutateAsync({ userId: String(user._id), changes });
      onClose(true);
    } catch (err) {
      showFailure(form, err, [...fields.map((f) => f.name), 'emailVerified']);
    }
  });

  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose(false)}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>Edit {String(user.email)}</Dialog.Title>
          <Dialog.Description className="muted">
            Protected fields, which end users cannot write themselves, are set here.
          </Dialog.Description>
          {collection.isPending && <Progress label="Loading the users schema…" />}
          <ErrorBox error={collection.error} />
          {collection.data && (
            <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
              <label className="check">
                <input type="checkbox" {...form.register('emailVerified')} />
                Email verified
              </label>
              {fields.map((f) => {
                const label = `${f.name}${f.protected ? ' (protected)' : ''}${f.private ? ' (private)' : ''}`;
                const message = errors[f.name]?.message;
                if (f.type === 'Boolean') {
                  return (
                    <div className="field" key={f.name}>
                      <label className="check">
                        <input type="checkbox" {...form.register(f.name)} />
                        {label}
                      </label>
                      <FieldError message={message} />
                    </div>
                  );
                }
                if (f.type === 'Object' || f.type === 'Array') {
                  const id = `user-field-${f.name}`;
                  return (
                    <div className="field" key={f.name}>
                      <label htmlFor={id}>{label} (JSON)</label>
                      <textarea
                        id={id}
                        rows={4}
                        className="mono"
                        {...form.register(f.name)}
                        aria-invalid={message ? true : undefined}
                      />
                      <FieldError message={message} />
                    </div>
                  );
                }
                return (
                  <Field
                    key={f.name}
                    id={`user-field-${f.name}`}
                    label={label}
                    inputMode={f.type === 'Number' ? 'decimal' : undefined}
                    {...form.register(f.name)}
                    error={message}
                  />
                );
              })}
              <FormMessage errors={errors} />
              <div className="dialog-actions">
                <Dialog.Close asChild>
                  <button type="button" className="secondary">
                    Cancel
                  </button>
                </Dialog.Close>
                <button type="submit" disabled={isSubmitting}>
                  {isSubmitting ? 'Saving…' : 'Save'}
                </button>
              </div>
            </form>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
