// The field-by-field difference of one collection's definition: fields added, removed and
// changed (nested ones by path: `meta.source`, `tags[]`), its mode and its RLS, with the parts
// that can lose data or refuse writes named as destructive, and those that widen access named too.
import type { CollectionSpec, FieldDef } from './definition.js';
import type { Destructive } from './plan.js';
import { fieldWidening, rlsChange } from './plan-widening.js';

type Flat = Map<string, Record<string, unknown>>;

/** Every field by path, each without its nested fields (those have paths of their own). */
function flatten(fields: FieldDef[], prefix = '', into: Flat = new Map()): Flat {
  for (const raw of fields as unknown as Record<string, unknown>[]) {
    const here = `${prefix}${raw.name as string}`;
    const { fields: children, items, ...own } = raw;
    const item = items as Record<string, unknown> | undefined;
    into.set(here, { ...own, ...(item ? { items: { type: item.type, ref: item.ref } } : {}) });
    if (Array.isArray(children)) flatten(children as FieldDef[], `${here}.`, into);
    if (item && Array.isArray(item.fields)) flatten(item.fields as FieldDef[], `${here}[].`, into);
  }
  return into;
}

/** The collections a definition's Ref fields (and Ref items) point to. */
export function refTargets(fields: FieldDef[]): string[] {
  const targets = new Set<string>();
  for (const field of flatten(fields).values()) {
    if (typeof field.ref === 'string') targets.add(field.ref);
    const items = field.items as { ref?: string } | undefined;
    if (items?.ref) targets.add(items.ref);
  }
  return [...targets];
}

const show = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

export function collectionChanges(name: string, now: CollectionSpec, want: CollectionSpec) {
  const changes: string[] = [];
  const destructive: Destructive[] = [];
  const widening: Destructive[] = [];
  if (now.mode !== want.mode) changes.push(`~ mode ${now.mode} -> ${want.mode}`);
  const before = flatten(now.fields);
  const after = flatten(want.fields);
  for (const [field, def] of before) {
    if (after.has(field)) continue;
    changes.push(`- field ${field} (${def.type as string})`);
    destructive.push({
      id: `drop-field:${name}.${field}`,
      reason: 'its values are no longer part of the schema',
    });
  }
  for (const [field, def] of after) {
    const old = before.get(field);
    if (!old) {
      changes.push(`+ field ${field} (${def.type as string})`);
    } else {
      const keys = [...new Set([...Object.keys(old), ...Object.keys(def)])].filter(
        (key) => JSON.stringify(old[key]) !== JSON.stringify(def[key]),
      );
      if (keys.length > 0)
        changes.push(
          `~ field ${field}: ${keys.map((k) => `${k} ${show(old[k])} -> ${show(def[k])}`).join(', ')}`,
        );
    }
    widening.push(...fieldWidening(name, field, old, def));
    if (def.unique === true && old?.unique !== true)
      destructive.push({
        id: `unique:${name}.${field}`,
        reason: 'existing duplicate values refuse a unique constraint',
      });
  }
  const kept = [...after.keys()].filter((field) => before.has(field));
  if (kept.join() !== [...before.keys()].filter((field) => after.has(field)).join())
    changes.push(`~ field order: ${kept.join(', ')}`);
  if (JSON.stringify(now.rls) !== JSON.stringify(want.rls)) {
    changes.push(
      `~ rls ${now.rls.enabled ? `${now.rls.mode} on ${now.rls.ownerField}` : 'off'} -> ${
        want.rls.enabled ? `${want.rls.mode} on ${want.rls.ownerField}` : 'off'
      }`,
    );
    const guarded = rlsChange(name, now.rls, want.rls);
    if (guarded.destructive) destructive.push(guarded.destructive);
    if (guarded.widening) widening.push(guarded.widening);
  }
  return { changes, destructive, widening };
}
