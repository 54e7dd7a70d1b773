// Converts between the API's field definitions and the editor's drafts.
import type { FieldDef } from './api';
import { newField, type DraftField, type FieldType } from './components/field-editor';

type AnyField = {
  name: string;
  type: string;
  required?: boolean;
  unique?: boolean;
  protected?: boolean;
  private?: boolean;
  default?: unknown;
  ref?: string;
  fields?: AnyField[];
  items?: { type: string; ref?: string; fields?: AnyField[] };
};

export function toDraft(field: AnyField): DraftField {
  const subFields = field.type === 'Array' ? field.items?.fields : field.fields;
  return {
    ...newField(),
    name: field.name,
    type: field.type as FieldType,
    required: !!field.required,
    unique: !!field.unique,
    protected: !!field.protected,
    private: !!field.private,
    defaultValue: field.default === undefined || field.default === null ? '' : String(field.default),
    ref: field.ref ?? '',
    itemType: (field.items?.type ?? '') as DraftField['itemType'],
    itemRef: field.items?.ref ?? '',
    fields: (subFields ?? []).map(toDraft),
  };
}

function defaultOf(d: DraftField): unknown {
  if (d.defaultValue === '' || d.required) return undefined;
  if (d.type === 'Number') return Number(d.defaultValue);
  if (d.type === 'Boolean') return d.defaultValue === 'true';
  if (d.type === 'String') return d.defaultValue;
  return undefined;
}

export function fromDraft(d: DraftField): FieldDef {
  const out: AnyField = { name: d.name.trim(), type: d.type };
  if (d.required) out.required = true;
  if (d.unique) out.unique = true;
  if (d.protected) out.protected = true;
  if (d.private) out.private = true;
  const value = defaultOf(d);
  if (value !== undefined) out.default = value;
  if (d.type === 'Ref') out.ref = d.ref;
  if (d.type === 'Object' && d.fields.length) out.fields = d.fields.map(fromDraft);
  if (d.type === 'Array' && d.itemType) {
    out.items = { type: d.itemType };
    if (d.itemType === 'Ref') out.items.ref = d.itemRef;
    if (d.itemType === 'Object' && d.fields.length) out.items.fields = d.fields.map(fromDraft);
  }
  return out as FieldDef;
}
