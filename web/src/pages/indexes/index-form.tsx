// The form that declares an index: keys chosen among the collection's fields (nested ones by dot
// path) with a direction each, unique, and a TTL on one Date field. Checked in the browser with
// the API's schema for the body, then sent; a refusal is shown in words under the field it names,
// and a unique index over repeating values lists the values the API named.
import { useState } from 'react';
import { useFieldArray, useForm } from 'react-hook-form';
import { ApiFailure, type Collection, type FieldDef } from '../../api';
import { Field, FieldError, Progress } from '../../components/ui';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { durationText, type IndexInput } from '../../data/indexes';

interface Values {
  keys: { field: string; direction: '1' | '-1' }[];
  unique: boolean;
  ttl: boolean;
  expireAfterSeconds: string;
  name: string;
}

interface Choice {
  path: string;
  type: string;
}

/** Every field an index may name: the schema's (Object fields' children by dot path) and the
 * timestamps every document has. */
export function fieldChoices(collection: Collection): Choice[] {
  const out: Choice[] = [];
  const walk = (fields: readonly FieldDef[] | undefined, prefix: string) => {
    for (const f of fields ?? []) {
      const path = `${prefix}${f.name}`;
      if (f.type === 'Object' && f.fields?.length) walk(f.fields as FieldDef[], `${path}.`);
      else out.push({ path, type: f.type });
    }
  };
  walk(collection.fields, '');
  out.push({ path: 'createdAt', type: 'Date' }, { path: 'updatedAt', type: 'Date' });
  return out;
}

const bodyOf = (v: Values): IndexInput => ({
  keys: v.keys.map((k) => ({ field: k.field, direction: k.direction === '-1' ? -1 : 1 })),
  unique: v.unique,
  ...(v.name.trim() ? { name: v.name.trim() } : {}),
  // An empty box is a number the schema refuses in words ("Enter a number."), never a silent 0.
  ...(v.ttl ? { expireAfterSeconds: v.expireAfterSeconds === '' ? NaN : Number(v.expireAfterSeconds) } : {}),
});

const FIELDS = ['name', 'unique', 'expireAfterSeconds'];

export function IndexForm({
  collection,
  onCreate,
  full = false,
}: {
  collection: Collection;
  onCreate: (body: IndexInput) => Promise<unknown>;
  /** The plan's limit of declared indexes is reached (the page says so above). */
  full?: boolean;
}) {
  const choices = fieldChoices(collection);
  const flexible = collection.mode === 'flexible';
  const typeOf = (path: string) => choices.find((c) => c.path === path)?.type;
  // A flexible collection stores what JSON sends, never a date: only the timestamps can expire.
  const ttlProblem = (path: string) =>
    flexible && path !== 'createdAt' && path !== 'updatedAt'
      ? `A TTL index on a flexible collection needs createdAt or updatedAt; ${path || 'this field'} is stored as JSON sends it, never as a date.`
      : typeOf(path) !== 'Date'
        ? `A TTL index needs a Date field; ${path} is ${typeOf(path) ?? 'not a field of the schema'}.`
        : undefined;
  const form = useForm<Values>({
    defaultValues: {
      keys: [{ field: '', direction: '1' }],
      unique: false,
      ttl: false,
      expireAfterSeconds: '',
      name: '',
    },
    resolver: async (values, context, options) => {
      const result = await apiResolver<Values>('createCollectionIndex', bodyOf)(values, context, options);
      // What the schema cannot say: a TTL index is one Date field (the API says so too, after a trip).
      if (values.ttl && Object.keys(result.errors).length === 0) {
        const [first] = values.keys;
        const problem =
          values.keys.length !== 1
            ? 'A TTL index has exactly one key: remove the others.'
            : (ttlProblem(first!.field) ?? (values.unique ? 'A TTL index cannot be unique.' : undefined));
        if (problem)
          return { values: {}, errors: { expireAfterSeconds: { type: 'schema', message: problem } } };
      }
      return result;
    },
  });
  const keys = useFieldArray({ control: form.control, name: 'keys' });
  const { errors, isSubmitting } = form.formState;
  const ttl = form.watch('ttl');
  const seconds = Number(form.watch('expireAfterSeconds'));
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);

  const submit = form.handleSubmit(async (values) => {
    setFailure(undefined);
    try {
      await onCreate(bodyOf(values));
      form.reset();
    } catch (err) {
      if (err instanceof ApiFailure) setFailure(err);
      const paths = values.keys.map((_, i) => `keys.${i}.field`);
      // DUPLICATE_VALUES details name the fields (not a form path): the list below shows them.
      const duplicate = err instanceof ApiFailure && err.code === 'DUPLICATE_VALUES';
      showFailure(form, err, duplicate ? [] : [...FIELDS, ...paths]);
    }
  });

  const duplicates = failure?.code === 'DUPLICATE_VALUES' ? failure.details : [];
  return (
    <form
      onSubmit={submit}
      onChange={() => {
        form.clearErrors('root');
        setFailure(undefined);
        // A change to one field can settle another's problem (a TTL on a field now a Date).
        if (form.formState.isSubmitted) void form.trigger();
      }}
      noValidate
      aria-labelledby="new-index-heading"
    >
      <h2 id="new-index-heading">New index</h2>
      {flexible && (
        <datalist id="index-field-choices">
          {choices.map((c) => (
            <option key={c.path} value={c.path} />
          ))}
        </datalist>
      )}
      {keys.fields.map((k, i) => (
        <div className="row" key={k.id}>
          <div className="field">
            <label htmlFor={`key-${i}-field`}>Key {i + 1}: field</label>
            {flexible ? (
              <input
                id={`key-${i}-field`}
                list="index-field-choices"
                autoComplete="off"
                placeholder="a field, or a dot path"
                aria-invalid={errors.keys?.[i]?.field ? true : undefined}
                aria-describedby={errors.keys?.[i]?.field ? `key-${i}-field-err` : undefined}
                {...form.register(`keys.${i}.field`)}
              />
            ) : (
              <select
                id={`key-${i}-field`}
                aria-invalid={errors.keys?.[i]?.field ? true : undefined}
                aria-describedby={errors.keys?.[i]?.field ? `key-${i}-field-err` : undefined}
                {...form.register(`keys.${i}.field`)}
              >
                <option value="">Choose a field</option>
                {choices.map((c) => (
                  <option key={c.path} value={c.path}>
                    {c.path} ({c.type})
                  </option>
                ))}
                {i > 0 && <option value="_id">_id (the tie-break of every sort)</option>}
              </select>
            )}
            <FieldError id={`key-${i}-field-err`} message={errors.keys?.[i]?.field?.message} />
          </div>
          <div className="field">
            <label htmlFor={`key-${i}-direction`}>Direction</label>
            <select id={`key-${i}-direction`} {...form.register(`keys.${i}.direction`)}>
              <option value="1">Ascending</option>
              <option value="-1">Descending</option>
            </select>
          </div>
          {keys.fields.length > 1 && (
            <button
              type="button"
              className="secondary"
              onClick={() => keys.remove(i)}
              aria-label={`Remove key ${i + 1}`}
            >
              Remove
            </button>
          )}
        </div>
      ))}
      <FieldError message={errors.keys?.message ?? errors.keys?.root?.message} />
      {keys.fields.length < 8 && (
        <button
          type="button"
          className="secondary"
          onClick={() => keys.append({ field: '', direction: '1' })}
        >
          Add a key
        </button>
      )}
      <label className="check">
        <input type="checkbox" {...form.register('unique')} />
        Unique: no two active documents share these values
      </label>
      <label className="check">
        <input type="checkbox" {...form.register('ttl')} />
        Expire documents (TTL): remove each one some time after its date
      </label>
      {ttl && (
        <Field
          label="Expire after (seconds)"
          inputMode="numeric"
          {...form.register('expireAfterSeconds')}
          hint={
            Number.isFinite(seconds) && seconds > 0
              ? `That is ${durationText(seconds)} after the date.`
              : '86400 is one day.'
          }
          error={errors.expireAfterSeconds?.message}
        />
      )}
      <Field
        label="Name (optional)"
        {...form.register('name')}
        hint="Letters, digits, _ . or -; by default the keys name it (status_1_createdAt_-1)."
        error={errors.name?.message}
      />
      <FormMessage errors={errors} />
      {duplicates.length > 0 && (
        <div className="error" data-testid="duplicate-values">
          <p>These values repeat; make them distinct (or trash the extra documents) first:</p>
          <ul>
            {duplicates.map((d) => (
              <li key={d.message}>{d.message}</li>
            ))}
          </ul>
        </div>
      )}
      {isSubmitting && <Progress label="Building the index…" />}
      <button type="submit" disabled={isSubmitting || full}>
        Create index
      </button>
    </form>
  );
}
