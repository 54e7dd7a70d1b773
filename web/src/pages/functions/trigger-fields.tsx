// The trigger picker of the function form: the type, then what it needs (the collection from the
// project's collections, who may call a callable and its own calls-a-minute, or the cron).
import { useEffect } from 'react';
import type { UseFormReturn } from 'react-hook-form';
import { Field, FieldError } from '../../components/ui';
import type { Values } from './function-form';
import { needs, TRIGGERS } from './words';

interface Props {
  form: UseFormReturn<Values>;
  /** The element id of a field of this form. */
  id: (field: string) => string;
  /** The project's collections a hook may watch (users left out). */
  names: string[];
}

export function TriggerFields({ form, id, names }: Props) {
  const { errors } = form.formState;
  const need = needs(form.watch('triggerType'));
  // A new form picks the first collection once the list is in.
  const first = names[0];
  useEffect(() => {
    if (need === 'collection' && !form.getValues('collection') && first) form.setValue('collection', first);
  }, [need, first, form]);

  return (
    <>
      <div className="field">
        <label htmlFor={id('trigger')}>Trigger</label>
        <select id={id('trigger')} {...form.register('triggerType')}>
          {TRIGGERS.map((t) => (
            <option key={t.type} value={t.type}>
              {t.type} — {t.words}
            </option>
          ))}
        </select>
        <FieldError message={errors.triggerType?.message} />
      </div>
      {need === 'collection' && (
        <div className="field">
          <label htmlFor={id('collection')}>Collection</label>
          <select id={id('collection')} {...form.register('collection')}>
            {names.length === 0 && <option value="">No collection yet: create one first</option>}
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <FieldError message={errors.collection?.message} />
        </div>
      )}
      {need === 'access' && (
        <div className="field">
          <label htmlFor={id('access')}>Who may call it</label>
          <select id={id('access')} {...form.register('access')}>
            <option value="public">public — either key</option>
            <option value="user">user — a signed-in end user</option>
            <option value="secret">secret — the secret key only</option>
          </select>
          <FieldError message={errors.access?.message} />
        </div>
      )}
      {need === 'access' && (
        <Field
          id={id('rate')}
          label="Calls a minute (optional)"
          hint="A limit of this function’s own, on top of the project’s; empty for none."
          inputMode="numeric"
          {...form.register('rateLimit')}
          error={errors.rateLimit?.message}
        />
      )}
      {need === 'cron' && (
        <Field
          id={id('cron')}
          label="Schedule (cron, UTC)"
          hint="Five fields: minute hour day month weekday."
          className="mono"
          {...form.register('cron')}
          error={errors.cron?.message}
        />
      )}
    </>
  );
}
