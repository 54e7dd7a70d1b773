// Builds one project's OpenAPI 3.1 document: the data operations of each of its collections and
// its end-user operations, typed by their definitions, with the shared pieces (errors, paging,
// tokens) copied from the published public document. A pure function of its input, so every
// process builds the same text, and its hash names the version.
import { createHash } from 'node:crypto';
import type { CollectionDef, Project } from '../types.js';
import { collectionEnvelopes, collectionPaths } from './data-paths.js';
import { createSchema, documentSchema, schemaRef, updateSchema, type Schema } from './field-schemas.js';
import {
  publishedComponent,
  publishedVersion,
  SHARED_PREFIX,
  type Json,
  type JsonObject,
} from './published.js';
import { refFields } from './query-params.js';
import { namedUsersFields, userPaths, userSchemas, type Audience } from './user-paths.js';

export interface ProjectDocumentInput {
  project: Pick<Project, 'id' | 'name' | 'settings'>;
  collections: CollectionDef[];
  publicUrl: string;
  /**
   * `publishable`: the copy for the publishable key, naming no private or protected user field and
   * no private-RLS collection.
   */
  audience?: Audience;
}

const SECURITY_SCHEMES: JsonObject = {
  publishableKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description:
      'The publishable key (`pk_live_...`): reads, and writes under RLS with a Bearer token. Safe in browsers.',
  },
  secretKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'The secret key (`sk_live_...`): everything, RLS bypassed. Server-side code only.',
  },
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An end-user access token (`accessToken` of sign-up, login or refresh), sent with the publishable key.',
  },
};

const DESCRIPTION = (name: string, users: string) =>
  `The API of the project "${name}", generated from its collection definitions: one set of data ` +
  'operations per collection, typed by its fields (schema collections are closed to other fields, ' +
  'flexible ones open), with the keys each allows. It changes when a collection does: `info.version` ' +
  'and the `ETag` of this document name its content. Generate a typed client from it, for example ' +
  '`npx openapi-typescript <url>?key=<publishable key> -o api.d.ts` with `openapi-fetch`.\n\n' +
  'Reads return whole documents as described; `fields=` and `meta=false` leave fields out, and ' +
  '`populate=` replaces ids by the `<collection>.Populated` shape of those fields. `count=true` on a ' +
  `list answers \`data: { count }\` instead of a page. ${users}`;

/** Every `#/components/<kind>/<name>` a node refers to. */
function refsIn(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) for (const item of node) refsIn(item, into);
  else if (node && typeof node === 'object') {
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/'))
      into.add(ref.slice('#/components/'.length));
    for (const value of Object.values(node)) refsIn(value, into);
  }
}

/** Copies the shared components the document refers to (transitively) from the published one. */
function sharedComponents(root: unknown): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  const queue = new Set<string>();
  refsIn(root, queue);
  for (const key of queue) {
    const [kind, name] = key.split('/') as [string, string];
    if (!name.startsWith(SHARED_PREFIX) || out[kind]?.[name] !== undefined) continue;
    const original = name.slice(SHARED_PREFIX.length);
    const found = original === 'Count' ? countEnvelope() : publishedComponent(kind, original);
    if (found === undefined) throw new Error(`No published component ${kind}/${original}`);
    (out[kind] ??= {})[name] = found;
    refsIn(found, queue); // a Set visits what is added while iterating
  }
  return out;
}

const countEnvelope = (): Json => ({
  type: 'object',
  description: 'The answer of a list with `count=true`.',
  required: ['success', 'data', 'message'],
  properties: {
    success: { const: true },
    data: schemaRef(`${SHARED_PREFIX}DocumentCount`) as Json,
    message: { type: 'string' },
  },
});

function collectionSchemas(def: CollectionDef): Record<string, Schema> {
  const out: Record<string, Schema> = {
    [def.name]: withIndexes(documentSchema(def, 'read'), def),
    [`${def.name}.Create`]: createSchema(def),
    [`${def.name}.Update`]: updateSchema(def),
    ...collectionEnvelopes(def.name),
  };
  if (refFields(def).length) out[`${def.name}.Populated`] = documentSchema(def, 'populated');
  return out;
}

/** The declared indexes as an extension of the document's schema (`x-indexes`), for tools and backups. */
function withIndexes(schema: Schema, def: CollectionDef): Schema {
  if (!def.indexes?.length) return schema;
  schema['x-indexes'] = def.indexes.map(({ name, keys, unique, expireAfterSeconds }) => ({
    name,
    keys: keys.map((k) => ({ ...k })),
    unique,
    ...(expireAfterSeconds === undefined ? {} : { expireAfterSeconds }),
  }));
  return schema;
}

/**
 * The publishable key reads a private-RLS collection only as one of its users (with a Bearer
 * token), while its document is open to anyone holding the key (it ships in every page): its copy
 * leaves those collections out, and a populated Ref into one becomes an untyped object.
 */
const keyAloneCannotRead = (def: CollectionDef) => def.rls.enabled && def.rls.mode === 'private';

/** Replaces every `$ref` to one of `names` (component schemas) in place by an untyped object. */
function unrefer(node: unknown, names: Set<string>): void {
  if (Array.isArray(node)) for (const item of node) unrefer(item, names);
  else if (node && typeof node === 'object') {
    const object = node as Record<string, unknown>;
    const ref = object.$ref;
    if (typeof ref === 'string' && names.has(ref.slice('#/components/schemas/'.length))) {
      delete object.$ref;
      Object.assign(object, { type: 'object', description: 'A document this key alone cannot read.' });
    }
    for (const value of Object.values(object)) unrefer(value, names);
  }
}

export function buildProjectDocument({
  project,
  collections,
  publicUrl,
  audience = 'full',
}: ProjectDocumentInput): {
  document: JsonObject;
  version: string;
} {
  const sorted = [...collections].sort((a, b) => a.name.localeCompare(b.name));
  const users = sorted.find((c) => c.name === 'users');
  const all = sorted.filter((c) => c.name !== 'users');
  const data = audience === 'publishable' ? all.filter((c) => !keyAloneCannotRead(c)) : all;
  const withUserOps = users !== undefined && project.settings.endUserAuth;
  const paths: JsonObject = {};
  let schemas: Record<string, Schema> = {};
  for (const def of data) {
    Object.assign(paths, collectionPaths(def));
    Object.assign(schemas, collectionSchemas(def));
  }
  if (users) schemas = { ...schemas, ...userSchemas(users, audience) };
  if (withUserOps) Object.assign(paths, userPaths(namedUsersFields(users, audience)));
  if (data.length < all.length) {
    unrefer({ paths, schemas }, new Set(all.filter((c) => !data.includes(c)).map((c) => c.name)));
  }
  const tags = data.map((def) => ({
    name: def.name,
    description: `The \`${def.name}\` collection (${def.mode === 'schema' ? 'schema' : 'flexible'}${def.rls.enabled ? `, RLS ${def.rls.mode} on \`${def.rls.ownerField}\`` : ''}).`,
  }));
  if (withUserOps) tags.push({ name: 'users', description: 'End users of the project (`/api/userAuth`).' });
  const usersNote = withUserOps
    ? 'End users sign up and in through `/api/userAuth` (the `users` tag); `/api/data/users` is closed.'
    : users
      ? 'End-user auth is switched off in the project settings, so its operations are left out.'
      : 'The project has no `users` collection, so it has no end-user operations.';
  const shared = sharedComponents({ paths, schemas });
  const document: JsonObject = {
    openapi: '3.1.0',
    info: {
      title: `${project.name} (project API)`,
      version: '',
      description:
        DESCRIPTION(project.name, usersNote) +
        (audience === 'publishable'
          ? ' Collections under private row-level security are left out of this copy (the ' +
            "publishable key's): the secret key's copy and the dashboard's list them."
          : ''),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: publicUrl, description: 'The public API.' }],
    tags: tags as Json,
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      ...shared,
      schemas: { ...(schemas as JsonObject), ...(shared.schemas ?? {}) },
    },
  };
  // The version names the content: the same definitions give the same version in every process.
  const hash = createHash('sha256')
    .update(publishedVersion())
    .update(JSON.stringify(document))
    .digest('base64url')
    .slice(0, 16);
  (document.info as JsonObject).version = hash;
  return { document, version: hash };
}
