// The form of a webhook, to add one or to edit it: target URL, what it is for, the events and
// collections it receives, and whether it is on. Checked with the API's schema before sending.
import { useForm } from 'react-hook-form';
import type { OperationId } from '../../forms/validate';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { Field, FieldError } from '../../components/ui';
import type { Webhook, WebhookInput } from '../../data/webhooks';

export const EVENTS = [
  'document.created',
  'document.updated',
  'document.deleted',
  'document.restored',
  'user.created',
] as const;

interface Values {
  url: string;
  description: string;
  events: string[];
  collections: string;
  enabled: boolean;
}

export const bodyOf = (v: Values): WebhookInput => ({
  url: v.url.trim(),
  description: v.description.trim() || null,
  events: v.events as WebhookInput['events'],
  collections: v.collections
    .split(/[\s,]+/)
    .map((c) => c.trim())
    .filter(Boolean),
  enabled: v.enabled,
});

const fieldOf = (path: string) => path.split('.')[0];

interface Props {
  webhook?: Webhook;
  /** The development profile: localhost targets are accepted, over http too. */
  loopbackTargets?: boolean;
  submitLabel: string;
  /** Sends the body; a refusal is put under the fields it names. */
  onSubmit: (body: WebhookInput) => Promise<unknown>;
  onCancel?: () => void;
}

export function WebhookForm({ webhook, loopbackTargets, submitLabel, onSubmit, onCancel }: Props) {
  const operation: OperationId = webhook ? 'updateWebhook' : 'createWebhook';
  const defaults: Values = {
    url: webhook?.url ?? '',
    description: webhook?.description ?? '',
    events: webhook?.events ?? ['document.created'],
    collections: webhook?.collections.join(', ') ?? '',
    enabled: webhook?.enabled ?? true,
  };
  const form = useForm<Values>({
    defaultValues: defaults,
    resolver: apiResolver<Values>(operation, bodyOf, fieldOf),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      await onSubmit(bodyOf(values));
      if (!webhook) form.reset(defaults);
    } catch (err) {
      showFailure(form, err, fieldOf);
    }
  });
  const prefix = webhook ? `wh-${webhook.id}` : 'wh-new';

  return (
    <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
      <Field
        id={`${prefix}-url`}
        label="Target URL"
        type="url"
        placeholder="https://hooks.example.com/baas"
        hint={
          loopbackTargets
            ? 'An https:// address; in this development profile also http://localhost:PORT/… or http://127.0.0.1:PORT/…'
            : 'An https:// address on a public host.'
        }
        {...form.register('url')}
        error={errors.url?.message}
      />
      <Field
        id={`${prefix}-description`}
        label="Description (optional)"
        placeholder="Search indexer"
        {...form.register('description')}
        error={errors.description?.message}
      />
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <label className="check" key={ev}>
            <input type="checkbox" value={ev} {...form.register('events')} />
            {ev}
          </label>
        ))}
        <FieldError message={errors.events?.message} />
      </fieldset>
      <Field
        id={`${prefix}-collections`}
        label="Only these collections (optional)"
        hint="Names separated by commas; empty for every collection. users for user.created."
        {...form.register('collections')}
        error={errors.collections?.message}
      />
      <label className="check">
        <input type="checkbox" {...form.register('enabled')} />
        Enabled
      </label>
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
