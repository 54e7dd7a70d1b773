// One field of the schema editor, and its sub-fields down to the third level. The controls offer
// only what the API accepts (a default only on non-required String, Number and Boolean fields,
// unique only at the top level, sub-fields only on Objects, a Ref target from the project's
// collections); whatever the API still refuses is shown under the field it names.
import type { ApiFailure } from '../api';
import { FieldError } from './ui';

export const TYPES = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'Ref'] as const;
export type FieldType = (typeof TYPES)[number];
const ITEM_TYPES = TYPES.filter((t) => t !== 'Array');
const DEFAULT_TYPES = new Set<FieldType>(['String', 'Number', 'Boolean']);
const UNIQUE_TYPES = new Set<FieldType>(['String', 'Number', 'Boolean', 'Date', 'Ref']);
export const MAX_LEVEL = 3;

export interface DraftField {
  key: string;
  name: string;
  type: FieldType;
  required: boolean;
  unique: boolean;
  /** Fields of the users collection: end users cannot write it / only the user reads it. */
  protected: boolean;
  private: boolean;
  /** As typed; converted to the field's type when sent. */
  defaultValue: string;
  ref: string;
  itemType: Exclude<FieldType, 'Array'> | '';
  itemRef: string;
  fields: DraftField[];
}

let counter = 0;
export const newField = (): DraftField => ({
  key: `f${++counter}`,
  name: '',
  type: 'String',
  required: false,
  unique: false,
  protected: false,
  private: false,
  defaultValue: '',
  ref: '',
  itemType: '',
  itemRef: '',
  fields: [],
});

interface Props {
  field: DraftField;
  path: string;
  level: number;
  targets: string[];
  failure?: ApiFailure;
  onChange: (field: DraftField) => void;
  onRemove: () => void;
  locked?: boolean;
  /** A field of the `users` collection: it may be protected or private (not email or password). */
  userField?: boolean;
}

export function FieldEditor({
  field,
  path,
  level,
  targets,
  failure,
  onChange,
  onRemove,
  locked,
  userField,
}: Props) {
  const set = (patch: Partial<DraftField>) => onChange({ ...field, ...patch });
  const id = `fe-${path.replace(/\./g, '-')}`;
  const err = (sub: string) => failure?.forField(`${path}.${sub}`);
  const own = failure?.forField(path);
  const canDefault = DEFAULT_TYPES.has(field.type) && !field.required;
  const hasSubFields =
    level < MAX_LEVEL && (field.type === 'Object' || (field.type === 'Array' && field.itemType === 'Object'));
  const subPath = field.type === 'Array' ? `${path}.items.fields` : `${path}.fields`;

  return (
    <fieldset className={`field-editor level-${level}`} aria-label={`Field ${field.name || '(unnamed)'}`}>
      <div className="row">
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            value={field.name}
            disabled={locked}
            maxLength={100}
            aria-invalid={err('name') ? true : undefined}
            onChange={(e) => set({ name: e.target.value })}
          />
          <FieldError message={err('name')} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-type`}>Type</label>
          <select
            id={`${id}-type`}
            value={field.type}
            disabled={locked}
            onChange={(e) => {
              const type = e.target.value as FieldType;
              set({
                type,
                unique: field.unique && UNIQUE_TYPES.has(type),
                defaultValue: DEFAULT_TYPES.has(type) ? field.defaultValue : '',
                fields: type === 'Object' || type === 'Array' ? field.fields : [],
              });
            }}
          >
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          <FieldError message={err('type')} />
        </div>
        <label className="check">
          <input
            type="checkbox"
            checked={field.required}
            disabled={locked}
            onChange={(e) =>
              set({
                required: e.target.checked,
                defaultValue: e.target.checked ? '' : field.defaultValue,
                // The API refuses a protected field that is required (end users could not sign up).
                protected: e.target.checked ? false : field.protected,
              })
            }
          />
          Required
        </label>
        {level === 1 && UNIQUE_TYPES.has(field.type) && (
          <label className="check">
            <input
              type="checkbox"
              checked={field.unique}
              disabled={locked}
              onChange={(e) => set({ unique: e.target.checked })}
            />
            Unique
          </label>
        )}
        {userField && level === 1 && !locked && (
          <>
            <label className="check" title="End users cannot write it; admins and the secret key set it.">
              <input
                type="checkbox"
                checked={field.protected}
                disabled={field.required}
                onChange={(e) => set({ protected: e.target.checked })}
              />
              Protected
            </label>
            <label className="check" title="Only the user themself and your server read it.">
              <input
                type="checkbox"
                checked={field.private}
                onChange={(e) => set({ private: e.target.checked })}
              />
              Private
            </label>
          </>
        )}
        {!locked && (
          <button
            type="button"
            className="danger secondary"
            onClick={onRemove}
            aria-label={`Remove field ${field.name || '(unnamed)'}`}
          >
            Remove
          </button>
        )}
      </div>
      <div className="row">
        {canDefault && field.type === 'Boolean' && (
          <div className="field">
            <label htmlFor={`${id}-default`}>Default</label>
            <select
              id={`${id}-default`}
              value={field.defaultValue}
              onChange={(e) => set({ defaultValue: e.target.value })}
            >
              <option value="">(none)</option>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
            <FieldError message={err('default')} />
          </div>
        )}
        {canDefault && field.type !== 'Boolean' && (
          <div className="field">
            <label htmlFor={`${id}-default`}>Default (optional)</label>
            <input
              id={`${id}-default`}
              type={field.type === 'Number' ? 'number' : 'text'}
              value={field.defaultValue}
              onChange={(e) => set({ defaultValue: e.target.value })}
            />
            <FieldError message={err('default')} />
          </div>
        )}
        {field.type === 'Ref' && (
          <div className="field">
            <label htmlFor={`${id}-ref`}>Refers to collection</label>
            <select
              id={`${id}-ref`}
              value={field.ref}
              aria-invalid={err('ref') ? true : undefined}
              onChange={(e) => set({ ref: e.target.value })}
            >
              <option value="">Choose…</option>
              {targets.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
            <FieldError message={err('ref')} />
          </div>
        )}
        {field.type === 'Array' && (
          <div className="field">
            <label htmlFor={`${id}-items`}>Items are</label>
            <select
              id={`${id}-items`}
              value={field.itemType}
              onChange={(e) => set({ itemType: e.target.value as DraftField['itemType'], fields: [] })}
            >
              <option value="">anything</option>
              {ITEM_TYPES.filter((t) => t !== 'Object' || level < MAX_LEVEL).map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
            <FieldError message={err('items.type') ?? err('items')} />
          </div>
        )}
        {field.type === 'Array' && field.itemType === 'Ref' && (
          <div className="field">
            <label htmlFor={`${id}-itemref`}>Items refer to</label>
            <select
              id={`${id}-itemref`}
              value={field.itemRef}
              aria-invalid={err('items.ref') ? true : undefined}
              onChange={(e) => set({ itemRef: e.target.value })}
            >
              <option value="">Choose…</option>
              {targets.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
            <FieldError message={err('items.ref')} />
          </div>
        )}
      </div>
      <FieldError message={own} />
      {hasSubFields && (
        <div className="subfields">
          <p className="muted">
            Sub-fields (level {level + 1} of {MAX_LEVEL})
          </p>
          {field.fields.map((sub, i) => (
            <FieldEditor
              key={sub.key}
              field={sub}
              path={`${subPath}.${i}`}
              level={level + 1}
              targets={targets}
              failure={failure}
              onChange={(next) => set({ fields: field.fields.map((f, j) => (j === i ? next : f)) })}
              onRemove={() => set({ fields: field.fields.filter((_, j) => j !== i) })}
            />
          ))}
          <button
            type="button"
            className="secondary"
            onClick={() => set({ fields: [...field.fields, newField()] })}
          >
            Add sub-field
          </button>
          <FieldError message={failure?.forField(subPath)} />
        </div>
      )}
    </fieldset>
  );
}
