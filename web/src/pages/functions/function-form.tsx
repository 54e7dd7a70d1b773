// The form of a hook or function, to create one or to edit it: name, the trigger picker (type, then
// the collection, access or cron it needs), the runtime (an HTTP URL, or JavaScript in the editor),
// failure policy, enabled, privileged, and secrets to add (values are write-only). Checked with
// the API's schema before sending; refusals land under the field they name.
import { lazy, Suspense, useEffect, useState } from 'react';
import { Controller, useFieldArray, useForm, type Resolver } from 'react-hook-form';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { Field, FieldError, Notice, Progress } from '../../components/ui';
import { useCollections } from '../../data/collections';
import type { FunctionInput, HostedFunction, TriggerType } from '../../data/functions';
import { takeDraft, useDraftSource } from '../../drafts';
import { useSession } from '../../session';
import { needs } from './words';
import { TriggerFields } from './trigger-fields';

// CodeMirror is most of a megabyte: loaded only when a form shows the editor.
const CodeEditor = lazy(() => import('./code-editor').then((m) => ({ default: m.CodeEditor })));

export const SAMPLE_CODE = `// Runs before each create in the collection; see /types/functions.d.ts for event and ctx.
export default async (event, ctx) => {
  ctx.log('creating', event.documents.length);
  return null; // unchanged; or { refuse: { status: 400, code: 'NO', message: '...' } }
};
`;

export interface Values {
  name: string;
  triggerType: TriggerType;
  collection: string;
  access: 'public' | 'user' | 'secret';
  cron: string;
  /** Callables: calls a minute, empty for no limit of its own. */
  rateLimit: string;
  runtimeType: 'http' | 'javascript';
  url: string;
  code: string;
  privileged: boolean;
  failurePolicy: 'closed' | 'open';
  enabled: boolean;
  secrets: { name: string; value: string }[];
}

/** The key of the form's draft (drafts.ts): the new function's form, or the edit form of one. */
export const functionDraftKey = (projectId: string, functionId?: string) =>
  `function:${projectId}:${functionId ?? 'new'}`;

export const bodyOf = (v: Values): FunctionInput => {
  const need = needs(v.triggerType);
  const secrets = v.secrets.filter((s) => s.name.trim() || s.value);
  return {
    name: v.name.trim(),
    trigger: {
      type: v.triggerType,
      ...(need === 'collection' ? { collection: v.collection } : {}),
      ...(need === 'access' ? { access: v.access } : {}),
      ...(need === 'cron' ? { cron: v.cron.trim() } : {}),
    },
    runtime:
      v.runtimeType === 'http'
        ? { type: 'http', url: v.url.trim() }
        : { type: 'javascript', code: v.code, privileged: v.privileged },
    failurePolicy: v.failurePolicy,
    enabled: v.enabled,
    ...(need === 'access'
      ? { rateLimitPerMinute: v.rateLimit.trim() ? Number(v.rateLimit.trim()) : null }
      : {}),
    ...(secrets.length ? { env: Object.fromEntries(secrets.map((s) => [s.name.trim(), s.value])) } : {}),
  };
};

/** The form field showing a body path (`trigger.collection` is the collection select, say). */
const fieldOf = (path: string): string | undefined => {
  const [head, sub] = path.split('.');
  if (head === 'trigger') return sub === 'type' ? 'triggerType' : sub;
  if (head === 'runtime') return sub ?? 'runtime';
  if (head === 'env') return 'secrets';
  if (head === 'rateLimitPerMinute') return 'rateLimit';
  return head;
};

/**
 * The runtime is one of two shapes (oneOf), which the schema can only refuse as a whole: say what
 * is wrong with the one the developer chose.
 */
function resolver(operation: 'createFunction' | 'updateFunction'): Resolver<Values> {
  const base = apiResolver<Values>(operation, bodyOf, fieldOf);
  return async (values, context, options) => {
    const result = await base(values, context, options);
    const errors = result.errors as Record<string, { type: string; message: string } | undefined>;
    if (errors.runtime) {
      const http = values.runtimeType === 'http';
      const given = (http ? values.url : values.code).trim();
      errors[http ? 'url' : 'code'] = {
        type: 'schema',
        message: http
          ? given
            ? 'At most 2048 characters.'
            : 'Required: the https:// address to call.'
          : given
            ? 'At most 1 MiB of code.'
            : 'Required: an ES module with a default export.',
      };
      delete errors.runtime;
    }
    return result;
  };
}

interface Props {
  fn?: HostedFunction;
  projectId: string;
  submitLabel: string;
  /** Sends the body; a refusal is put under the fields it names. */
  onSubmit: (body: FunctionInput) => Promise<unknown>;
  onCancel?: () => void;
}

export function FunctionForm({ fn, projectId, submitLabel, onSubmit, onCancel }: Props) {
  const collections = useCollections(projectId);
  const names = (collections.data ?? []).map((c) => c.name).filter((n) => n !== 'users');
  const runtime = fn?.runtime;
  const defaults: Values = {
    name: fn?.name ?? '',
    triggerType: fn?.trigger.type ?? 'beforeCreate',
    collection: fn?.trigger.collection ?? '',
    access: fn?.trigger.access ?? 'user',
    cron: fn?.trigger.cron ?? '0 * * * *',
    rateLimit: fn?.rateLimitPerMinute ? String(fn.rateLimitPerMinute) : '',
    runtimeType: runtime?.type ?? 'javascript',
    url: runtime?.type === 'http' ? runtime.url : '',
    code: runtime?.type === 'javascript' ? runtime.code : SAMPLE_CODE,
    privileged: runtime?.type === 'javascript' ? !!runtime.privileged : false,
    failurePolicy: fn?.failurePolicy ?? 'closed',
    enabled: fn?.enabled ?? true,
    secrets: [],
  };
  const form = useForm<Values>({
    defaultValues: defaults,
    resolver: resolver(fn ? 'updateFunction' : 'createFunction'),
  });
  const secrets = useFieldArray({ control: form.control, name: 'secrets' });
  // What is typed survives an ended session, as in the document and collection forms; secret
  // values are write-only, so they are never written to sessionStorage (their names are).
  const developerId = useSession().developer?.id;
  const draftKey = functionDraftKey(projectId, fn?.id);
  const typed = form.watch();
  useDraftSource(draftKey, { ...typed, secrets: typed.secrets.map((s) => ({ name: s.name, value: '' })) });
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    const draft = takeDraft<Values>(developerId, draftKey);
    if (!draft) return;
    form.reset({ ...defaults, ...draft });
    setRestored(true);
  }, []);
  const { errors, isSubmitting } = form.formState;
  const runtimeType = form.watch('runtimeType');
  const submit = form.handleSubmit(async (values) => {
    try {
      await onSubmit(bodyOf(values));
      setRestored(false);
      // A new function's form starts over; an edited one keeps what was saved.
      form.reset(fn ? { ...values, secrets: [] } : defaults);
    } catch (err) {
      showFailure(form, err, (path) => (path === 'runtime' ? undefined : fieldOf(path)));
    }
  });
  const id = (field: string) => `${fn ? `fn-${fn.id}` : 'fn-new'}-${field}`;

  return (
    <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
      {restored && <Notice>Restored what you were typing when your session ended.</Notice>}
      <Field
        id={id('name')}
        label="Name"
        placeholder="checkPost"
        {...form.register('name')}
        error={errors.name?.message}
      />
      <TriggerFields form={form} id={id} names={names} />
      <fieldset>
        <legend>Runtime</legend>
        <label className="check">
          <input type="radio" value="javascript" {...form.register('runtimeType')} />
          JavaScript, hosted here
        </label>
        <label className="check">
          <input type="radio" value="http" {...form.register('runtimeType')} />
          HTTP: your own endpoint, called signed
        </label>
      </fieldset>
      {runtimeType === 'http' ? (
        <Field
          id={id('url')}
          label="Endpoint URL"
          type="url"
          placeholder="https://hooks.example.com/before-create"
          {...form.register('url')}
          error={errors.url?.message}
        />
      ) : (
        <div className="field">
          <span className="label" id={id('code-label')}>
            Code
          </span>
          <small className="hint">
            <code>export default async (event, ctx) =&gt; value</code> · types:{' '}
            <a href="/types/functions.d.ts">functions.d.ts</a>
          </small>
          <Controller
            control={form.control}
            name="code"
            render={({ field }) => (
              <Suspense fallback={<Progress label="Loading the editor…" />}>
                <CodeEditor
                  value={field.value}
                  onChange={field.onChange}
                  label="Code"
                  problem={errors.code?.message}
                />
              </Suspense>
            )}
          />
          <FieldError message={errors.code?.message} />
          <label className="check">
            <input type="checkbox" {...form.register('privileged')} />
            Privileged: ctx.db acts with the secret key’s rights, not the caller’s
          </label>
        </div>
      )}
      <div className="field">
        <label htmlFor={id('policy')}>When it fails or times out</label>
        <select id={id('policy')} aria-describedby={id('policy-hint')} {...form.register('failurePolicy')}>
          <option value="closed">closed — refuse the request</option>
          <option value="open">open — let the request go on</option>
        </select>
        <small className="hint" id={id('policy-hint')}>
          Open lets a write through unchecked whenever the hook fails: keep it for hooks that check nothing.
        </small>
      </div>
      <label className="check">
        <input type="checkbox" {...form.register('enabled')} />
        Enabled
      </label>
      <fieldset>
        <legend>{fn?.env.length ? 'Add or replace secrets' : 'Secrets'}</legend>
        <small className="hint">Hosted code reads them as ctx.env.NAME. Values are never shown again.</small>
        {secrets.fields.map((s, i) => (
          <div className="secret-row" key={s.id}>
            <Field
              id={id(`secret-${i}-name`)}
              label="Secret name"
              placeholder="API_TOKEN"
              {...form.register(`secrets.${i}.name`)}
            />
            <Field
              id={id(`secret-${i}-value`)}
              label="Value"
              type="password"
              autoComplete="off"
              {...form.register(`secrets.${i}.value`)}
            />
            <button type="button" className="secondary" onClick={() => secrets.remove(i)}>
              Drop
            </button>
          </div>
        ))}
        <FieldError message={errors.secrets?.message ?? errors.secrets?.root?.message} />
        <button type="button" className="secondary" onClick={() => secrets.append({ name: '', value: '' })}>
          Add a secret
        </button>
      </fieldset>
      <FormMessage errors={errors} />
      <div className="row">
        <button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Saving…' : submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
