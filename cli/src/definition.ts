// A project's definition as one reviewable file: settings, collections (fields, RLS, declared
// indexes), webhooks (never their secrets), custom mail templates, and hooks and functions (their
// JavaScript in files beside it, cli/src/functions.ts). `pull` reads it from the
// dashboard API; `canonical` gives it one order and one formatting, so that a pull of an
// unchanged project writes the same bytes and a diff in review shows only real changes.
import type { components } from '../../generated/dashboard.js';
import { unwrap, type Api } from './api.js';
import { canonicalFunction, functionsToFile, pullFunctions, type FunctionSpec } from './functions.js';

type Schemas = components['schemas'];
export type FieldDef = Schemas['FieldDef'];

export interface IndexSpec {
  name: string;
  keys: { field: string; direction: 1 | -1 }[];
  unique: boolean;
  expireAfterSeconds?: number;
}

export interface CollectionSpec {
  mode: 'flexible' | 'schema';
  fields: FieldDef[];
  rls: { enabled: boolean; mode: 'public-read' | 'private'; ownerField: string };
  indexes: IndexSpec[];
}

export interface WebhookSpec {
  url: string;
  events: Schemas['WebhookEvent'][];
  collections: string[];
  description: string | null;
  enabled: boolean;
}

export interface TemplateSpec {
  subject: string;
  text: string | null;
  html: string | null;
}

export interface ProjectDefinition {
  $schema?: string;
  settings: { allowedOrigins: string[]; endUserAuth: boolean; siteUrl: string | null };
  collections: Record<string, CollectionSpec>;
  webhooks: WebhookSpec[];
  mailTemplates: Record<string, TemplateSpec>;
  /** Hooks and functions by name; JavaScript runtimes carry their code here (not in the file). */
  functions: Record<string, FunctionSpec>;
}

/** Where pull used to point `$schema`: inside a local install only, so it is replaced. */
export const OLD_SCHEMA_REF = './node_modules/mongobaas-cli/schema/project-config.schema.json';
/** The schema the installation serves (scripts/build-clients.sh), found by an editor wherever the CLI is. */
export const schemaRef = (url: string) => `${url}/clients/project-config.schema.json`;

/** Reads the project's definition through the dashboard API. */
export async function pullDefinition(api: Api, projectId: string): Promise<ProjectDefinition> {
  const path = { projectId };
  const [{ project }, { collections }, { webhooks }, { templates }, functions] = await Promise.all([
    unwrap(api.GET('/api/projects/{projectId}', { params: { path } })),
    unwrap(api.GET('/api/projects/{projectId}/collections', { params: { path } })),
    unwrap(api.GET('/api/projects/{projectId}/webhooks', { params: { path } })),
    unwrap(api.GET('/api/projects/{projectId}/mail/templates', { params: { path } })),
    pullFunctions(api, projectId),
  ]);
  return canonical({
    settings: project.settings,
    collections: Object.fromEntries(
      collections.map((c) => [
        c.name,
        {
          mode: c.mode,
          fields: c.fields,
          rls: c.rls,
          indexes: c.indexes
            .filter((index) => index.source === 'declared')
            .map(({ name, keys, unique, expireAfterSeconds }) => ({
              name,
              keys,
              unique,
              expireAfterSeconds,
            })),
        },
      ]),
    ),
    webhooks: webhooks.map(({ url, events, collections, description, enabled }) => ({
      url,
      events,
      collections,
      description,
      enabled,
    })),
    mailTemplates: Object.fromEntries(
      templates
        .filter((t) => !t.system)
        .map((t) => [t.name, { subject: t.subject, text: t.text, html: t.html }]),
    ),
    functions,
  });
}

const FIELD_KEYS = [
  'name',
  'type',
  'required',
  'unique',
  'default',
  'ref',
  'protected',
  'private',
  'items',
  'fields',
];

/** Keys in a fixed order, unset and false flags left out, nested fields alike. */
function canonicalField(field: Record<string, unknown>): FieldDef {
  const out: Record<string, unknown> = {};
  for (const key of FIELD_KEYS) {
    const value = field[key];
    if (value === undefined || value === false || value === null) continue;
    if (key === 'fields') out[key] = (value as Record<string, unknown>[]).map(canonicalField);
    else if (key === 'items') out[key] = canonicalField(value as Record<string, unknown>);
    else out[key] = value;
  }
  return out as unknown as FieldDef;
}

const byKey = <T>(record: Record<string, T>, map: (value: T) => T) =>
  Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, map(record[key]!)]),
  );
const sorted = (list: string[]) => [...list].sort();

/** One order and shape for a definition, whatever the order it was written or listed in. */
export function canonical(def: ProjectDefinition): ProjectDefinition {
  return {
    ...(def.$schema ? { $schema: def.$schema } : {}),
    settings: {
      allowedOrigins: sorted(def.settings?.allowedOrigins ?? []),
      endUserAuth: def.settings?.endUserAuth ?? true,
      siteUrl: def.settings?.siteUrl ?? null,
    },
    collections: byKey(def.collections ?? {}, (c) => ({
      mode: c.mode ?? 'flexible',
      // Field order is the developer's (the dashboard shows it), so it is kept.
      fields: (c.fields ?? []).map((f) => canonicalField(f as Record<string, unknown>)),
      rls: {
        enabled: c.rls?.enabled ?? false,
        mode: c.rls?.mode ?? 'public-read',
        ownerField: c.rls?.ownerField ?? 'userId',
      },
      indexes: [...(c.indexes ?? [])]
        .map((i) => ({
          name: i.name,
          keys: i.keys.map((k) => ({ field: k.field, direction: k.direction ?? 1 })),
          unique: i.unique ?? false,
          ...(i.expireAfterSeconds !== undefined ? { expireAfterSeconds: i.expireAfterSeconds } : {}),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    })),
    webhooks: [...(def.webhooks ?? [])]
      .map((w) => ({
        url: w.url,
        events: sorted(w.events) as WebhookSpec['events'],
        collections: sorted(w.collections ?? []),
        description: w.description ?? null,
        enabled: w.enabled ?? true,
      }))
      .sort((a, b) => a.url.localeCompare(b.url)),
    mailTemplates: byKey(def.mailTemplates ?? {}, (t) => ({
      subject: t.subject,
      text: t.text ?? null,
      html: t.html ?? null,
    })),
    functions: byKey(def.functions ?? {}, canonicalFunction),
  };
}

/** The definition file's text and the code files to write beside it (paths relative to it). */
export function serialize(def: ProjectDefinition): { text: string; files: Map<string, string> } {
  const { functions, ...rest } = canonical(def);
  const { specs, files } = functionsToFile(functions);
  const text = JSON.stringify({ ...rest, functions: specs }, null, 2) + '\n';
  return { text, files };
}
