// What `push` would change, as steps in the order they run: settings, new collections (the ones
// a Ref points to first), changed collections and indexes, webhooks, mail templates, hooks and
// functions (once their collections exist), then the collections the file no longer has. Each step says field by field what it changes and names
// its destructive parts (a dropped collection, field, webhook or template, an RLS change, a new
// unique constraint that existing duplicates would refuse) and the parts that widen access
// (plan-widening.ts), which push applies only when --allow-destructive / --allow-widening name them.
import { unwrap, type Api } from './api.js';
import type { CollectionSpec, FieldDef, IndexSpec, ProjectDefinition } from './definition.js';
import { collectionChanges, refTargets } from './plan-fields.js';
import { settingsSteps, templateSteps, webhookSteps } from './plan-extras.js';
import { functionSteps } from './functions.js';

export interface Destructive {
  /** The name --allow-destructive (or --allow-widening) takes, e.g. `drop-field:posts.title`. */
  id: string;
  reason: string;
}

export interface Step {
  summary: string;
  changes: string[];
  destructive: Destructive[];
  /** What the step opens to more people or sends to a new place; --allow-widening names them. */
  widening?: Destructive[];
  apply(api: Api, projectId: string): Promise<void>;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const path = (projectId: string) => ({ projectId });

/** New collections ordered so that a Ref's target is created before the collection pointing at it. */
function creationOrder(names: string[], desired: Record<string, CollectionSpec>): string[] {
  const pending = new Set(names);
  const order: string[] = [];
  const visit = (name: string, trail: Set<string>) => {
    if (!pending.has(name) || trail.has(name)) return;
    trail.add(name);
    for (const target of refTargets(desired[name]!.fields)) if (target !== name) visit(target, trail);
    pending.delete(name);
    order.push(name);
  };
  for (const name of names) visit(name, new Set());
  return order;
}

function indexSteps(name: string, current: IndexSpec[], desired: IndexSpec[]): Step[] {
  const steps: Step[] = [];
  const now = new Map(current.map((i) => [i.name, i]));
  const want = new Map(desired.map((i) => [i.name, i]));
  const drop = (index: IndexSpec): Step => ({
    summary: `drop index ${name}/${index.name}`,
    changes: [],
    destructive: [],
    apply: async (api, projectId) => {
      await unwrap(
        api.DELETE('/api/projects/{projectId}/collections/{collectionName}/indexes/{indexName}', {
          params: { path: { ...path(projectId), collectionName: name, indexName: index.name } },
        }),
      );
    },
  });
  const create = (index: IndexSpec): Step => ({
    summary: `create index ${name}/${index.name}`,
    changes: [
      `keys ${index.keys.map((k) => `${k.field}:${k.direction}`).join(', ')}${index.unique ? ', unique' : ''}`,
    ],
    destructive: index.unique
      ? [
          {
            id: `unique-index:${name}/${index.name}`,
            reason: 'existing duplicate values refuse a unique index',
          },
        ]
      : [],
    apply: async (api, projectId) => {
      await unwrap(
        api.POST('/api/projects/{projectId}/collections/{collectionName}/indexes', {
          params: { path: { ...path(projectId), collectionName: name } },
          body: index,
        }),
      );
    },
  });
  for (const [indexName, index] of now) {
    const wanted = want.get(indexName);
    if (!wanted) steps.push(drop(index));
    else if (!same(index, wanted)) steps.push(drop(index), create(wanted));
  }
  for (const [indexName, index] of want) if (!now.has(indexName)) steps.push(create(index));
  return steps;
}

function collectionSteps(current: ProjectDefinition, desired: ProjectDefinition): Step[] {
  const steps: Step[] = [];
  const added = Object.keys(desired.collections).filter((name) => !current.collections[name]);
  for (const name of creationOrder(added, desired.collections)) {
    const spec = desired.collections[name]!;
    steps.push({
      summary: `create collection ${name} (${spec.mode}, ${spec.fields.length} fields)`,
      changes: spec.fields.map((f: FieldDef) => `+ field ${f.name} (${f.type})`),
      destructive: [],
      apply: async (api, projectId) => {
        await unwrap(
          api.POST('/api/projects/{projectId}/collections', {
            params: { path: path(projectId) },
            body: { name, mode: spec.mode, fields: spec.fields, rls: spec.rls, indexes: spec.indexes },
          }),
        );
      },
    });
  }
  for (const [name, spec] of Object.entries(desired.collections)) {
    const now = current.collections[name];
    if (!now) continue;
    const { changes, destructive, widening } = collectionChanges(name, now, spec);
    if (changes.length > 0)
      steps.push({
        summary: `update collection ${name}`,
        changes,
        destructive,
        widening,
        apply: async (api, projectId) => {
          await unwrap(
            api.PUT('/api/projects/{projectId}/collections/{collectionName}', {
              params: { path: { ...path(projectId), collectionName: name } },
              body: { mode: spec.mode, fields: spec.fields, rls: spec.rls },
            }),
          );
        },
      });
    steps.push(...indexSteps(name, now.indexes, spec.indexes));
  }
  return steps;
}

function dropCollectionSteps(current: ProjectDefinition, desired: ProjectDefinition): Step[] {
  return Object.keys(current.collections)
    .filter((name) => !desired.collections[name])
    .map((name) => ({
      summary: `drop collection ${name}`,
      changes: ['its documents are deleted'],
      destructive: [{ id: `drop-collection:${name}`, reason: 'deletes the collection and its documents' }],
      apply: async (api: Api, projectId: string) => {
        await unwrap(
          api.DELETE('/api/projects/{projectId}/collections/{collectionName}', {
            params: { path: { ...path(projectId), collectionName: name } },
          }),
        );
      },
    }));
}

/** Every step from the project as it is to the project as the file says. */
export function plan(current: ProjectDefinition, desired: ProjectDefinition): Step[] {
  return [
    ...settingsSteps(current, desired),
    ...collectionSteps(current, desired),
    ...webhookSteps(current, desired),
    ...templateSteps(current, desired),
    ...functionSteps(current.functions, desired.functions),
    ...dropCollectionSteps(current, desired),
  ];
}

/** The guarded parts of the steps that the flags do not name; push refuses to start while any is left. */
export function unconfirmed(steps: Step[], allowDestructive: string[] = [], allowWidening: string[] = []) {
  const destructive = new Set(allowDestructive);
  const widening = new Set(allowWidening);
  return {
    destructive: steps.flatMap((s) => s.destructive).filter((d) => !destructive.has(d.id)),
    widening: steps.flatMap((s) => s.widening ?? []).filter((d) => !widening.has(d.id)),
  };
}

/** The refusal naming each flag that would allow what is left, or undefined when nothing is. */
export function refusalMessage(left: ReturnType<typeof unconfirmed>): string | undefined {
  const parts: string[] = [];
  const flags: string[] = [];
  if (left.destructive.length > 0) {
    parts.push(`destructive steps not allowed: ${left.destructive.map((d) => d.id).join(', ')}`);
    flags.push(`--allow-destructive ${left.destructive.map((d) => d.id).join(',')}`);
  }
  if (left.widening.length > 0) {
    parts.push(`changes that widen access not allowed: ${left.widening.map((d) => d.id).join(', ')}`);
    flags.push(`--allow-widening ${left.widening.map((d) => d.id).join(',')}`);
  }
  if (parts.length === 0) return undefined;
  return `Refused: ${parts.join('; ')}. Re-run with ${flags.join(' ')} if you mean it.`;
}
