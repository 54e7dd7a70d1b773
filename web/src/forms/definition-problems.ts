// The rules of a collection definition that its JSON schema cannot state, because they relate
// one part of the body to another: names unique within a level, a Ref naming its target, a
// schema collection having a field, an RLS owner that can hold an end user's id. The service
// checks the same (src/services/schema/); here they are found all at once, before sending, and
// put under the control they concern, beside the schema's own problems (problemsOf).
import type { FieldDef } from '../api';
import type { Problem } from './validate';

type Def = {
  name?: string;
  type: string;
  ref?: string;
  fields?: Def[];
  items?: { type: string; ref?: string; fields?: Def[] };
};

export interface DefinitionBody {
  mode: 'flexible' | 'schema';
  fields: FieldDef[];
  rls: { enabled: boolean; ownerField?: string };
}

export const OWNER_MISSING = 'Choose which field holds the owner’s user id.';

/** The top-level fields that can hold an end user's id: Strings, and Refs to `users`. */
export function ownerChoices(fields: readonly Def[]): string[] {
  return fields
    .filter((f) => f.name && (f.type === 'String' || (f.type === 'Ref' && f.ref === 'users')))
    .map((f) => f.name!);
}

function fieldProblems(fields: readonly Def[], path: string, out: Problem[]): void {
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const at = `${path}.${i}`;
    const name = f.name?.trim() ?? '';
    if (name && seen.has(name))
      out.push({ path: `${at}.name`, message: `Another field here is named “${name}”.` });
    seen.add(name);
    if (f.type === 'Ref' && !f.ref)
      out.push({ path: `${at}.ref`, message: 'Choose the collection it refers to.' });
    if (f.items?.type === 'Ref' && !f.items.ref)
      out.push({ path: `${at}.items.ref`, message: 'Choose the collection its items refer to.' });
    if (f.fields) fieldProblems(f.fields, `${at}.fields`, out);
    if (f.items?.fields) fieldProblems(f.items.fields, `${at}.items.fields`, out);
  });
}

/** Every cross-field problem of the body, at most one per path. */
export function definitionProblems(body: DefinitionBody): Problem[] {
  const out: Problem[] = [];
  if (body.mode === 'schema' && body.fields.length === 0)
    out.push({
      path: 'fields',
      message: 'A schema collection needs at least one field: add one, or choose Flexible.',
    });
  fieldProblems(body.fields as Def[], 'fields', out);
  if (body.rls.enabled && !ownerChoices(body.fields as Def[]).includes(body.rls.ownerField ?? ''))
    out.push({ path: 'rls.ownerField', message: OWNER_MISSING });
  return out;
}

/** The schema's problems and the cross-field ones, the schema's first where both name a path. */
export function mergeProblems(first: Problem[], second: Problem[]): Problem[] {
  const paths = new Set(first.map((p) => p.path));
  return [...first, ...second.filter((p) => !paths.has(p.path))];
}
