// The data operations of one collection in a project document: the published operations of
// /api/data/{collectionName} (descriptions, paging parameters, error responses), on the
// collection's own paths, with its document schemas, its filters, and the keys its RLS settings
// allow. What the key or RLS rules out is stated as a 403 (or a 401 for a missing token).
import type { CollectionDef } from '../types.js';
import { schemaRef, type Schema } from './field-schemas.js';
import { publishedOperation, SHARED_PREFIX, type Json, type JsonObject } from './published.js';
import {
  fieldsDescription,
  filterParameters,
  populateDescription,
  refFields,
  sortDescription,
} from './query-params.js';
import { exampleOf } from './examples.js';

type Kind =
  | 'list'
  | 'create'
  | 'bulk'
  | 'bulkDelete'
  | 'bulkRestore'
  | 'aggregate'
  | 'get'
  | 'update'
  | 'patch'
  | 'delete'
  | 'restore';
type Access = 'read' | 'write' | 'aggregate';

const SOURCE: Record<Kind, [path: string, method: string, access: Access]> = {
  list: ['/api/data/{collectionName}', 'get', 'read'],
  create: ['/api/data/{collectionName}', 'post', 'write'],
  bulk: ['/api/data/{collectionName}/bulk', 'post', 'write'],
  bulkDelete: ['/api/data/{collectionName}/bulk/delete', 'post', 'write'],
  bulkRestore: ['/api/data/{collectionName}/bulk/restore', 'post', 'write'],
  aggregate: ['/api/data/{collectionName}/aggregate', 'post', 'aggregate'],
  get: ['/api/data/{collectionName}/{id}', 'get', 'read'],
  update: ['/api/data/{collectionName}/{id}', 'put', 'write'],
  patch: ['/api/data/{collectionName}/{id}', 'patch', 'write'],
  delete: ['/api/data/{collectionName}/{id}', 'delete', 'write'],
  restore: ['/api/data/{collectionName}/{id}/restore', 'post', 'write'],
};

const SUMMARY: Record<Kind, (name: string) => string> = {
  list: (n) => `List or count ${n} documents`,
  create: (n) => `Create a ${n} document`,
  bulk: (n) => `Create up to 100 ${n} documents at once`,
  bulkDelete: (n) => `Move up to 100 ${n} documents to the trash`,
  bulkRestore: (n) => `Restore up to 100 ${n} documents from the trash`,
  aggregate: (n) => `Run an aggregation pipeline over ${n}`,
  get: (n) => `Read one ${n} document`,
  update: (n) => `Update fields of a ${n} document (PUT)`,
  patch: (n) => `Update fields of a ${n} document (PATCH)`,
  delete: (n) => `Move a ${n} document to the trash`,
  restore: (n) => `Restore a ${n} document from the trash`,
};

const shared = (name: string) => schemaRef(`${SHARED_PREFIX}${name}`);
const json = (schema: Schema, example?: Json): JsonObject => ({
  'application/json': (example === undefined ? { schema } : { schema, example }) as JsonObject,
});

/** Who may call, as security requirements (alternatives), and the refusals that follow. */
function access(
  def: CollectionDef,
  kind: Access,
): { security: JsonObject[]; rules: string[]; forbidden: string[] } {
  const origin = '`ORIGIN_NOT_ALLOWED`: the publishable key used from an origin the project does not allow.';
  const rls = def.rls.enabled;
  const owner = `\`${def.rls.ownerField}\``;
  if (kind === 'read') {
    if (rls && def.rls.mode === 'private') {
      return {
        security: [{ secretKey: [] }, { publishableKey: [], bearerAuth: [] }],
        rules: [
          `Private RLS: with the publishable key a Bearer token is required (401 \`MISSING_TOKEN\` without), and only documents whose ${owner} is the token user are visible (another user's document is a 404). The secret key reads everything.`,
        ],
        forbidden: [origin],
      };
    }
    return {
      security: [{ publishableKey: [] }, { secretKey: [] }],
      rules: ['Either key reads every document of this collection.'],
      forbidden: [origin],
    };
  }
  if (kind === 'aggregate') {
    if (rls) {
      return {
        security: [{ secretKey: [] }, { publishableKey: [], bearerAuth: [] }],
        rules: [
          `RLS: with the publishable key a Bearer token is required and the pipeline sees only the token user's documents (${owner}).`,
        ],
        forbidden: [origin],
      };
    }
    return {
      security: [{ publishableKey: [] }, { secretKey: [] }],
      rules: ['Either key aggregates every document of this collection.'],
      forbidden: [origin],
    };
  }
  if (rls) {
    return {
      security: [{ secretKey: [] }, { publishableKey: [], bearerAuth: [] }],
      rules: [
        `RLS: the secret key, or the publishable key with a Bearer token (401 \`MISSING_TOKEN\` without). With the publishable key ${owner} is the token user (filled in on create when left out).`,
      ],
      forbidden: [
        `\`OWNER_MISMATCH\`: the publishable key on another user's document, or a create naming another owner in ${owner}.`,
        `\`OWNER_IMMUTABLE\`: a change of ${owner}, whatever the key.`,
        '`QUOTA_EXCEEDED`: the project would pass its database size.',
        origin,
      ],
    };
  }
  return {
    security: [{ secretKey: [] }],
    rules: ['No RLS on this collection: only the secret key writes.'],
    forbidden: [
      '`PUBLISHABLE_KEY_READ_ONLY`: the publishable key cannot write to this collection (it has no row-level security).',
      '`QUOTA_EXCEEDED`: the project would pass its database size.',
      origin,
    ],
  };
}

function forbiddenResponse(reasons: string[]): JsonObject {
  return {
    description: `Refused for this collection: ${reasons.join(' ')}`,
    content: json(shared('Error')),
  };
}

function parametersFor(def: CollectionDef, kind: Kind, params: JsonObject[]): JsonObject[] {
  const refs = refFields(def);
  const out: JsonObject[] = [];
  for (const param of params) {
    if (param.in === 'path' && param.name === 'collectionName') continue;
    if (param.name === 'populate') {
      if (!refs.length) continue;
      out.push({ ...param, description: populateDescription(def, `${def.name}.Populated`) });
    } else if (param.name === 'filters') {
      if (def.mode === 'schema') continue;
      out.push({
        ...param,
        description:
          'Flexible collection: any other field may be filtered, `<field>=value` or `<field>_<suffix>=value`, one query parameter per filter.',
      });
    } else if (param.name === 'sort') out.push({ ...param, description: sortDescription(def) });
    else if (param.name === 'fields') out.push({ ...param, description: fieldsDescription(def) });
    else out.push(param);
  }
  if (kind === 'list') out.push(...(filterParameters(def) as JsonObject[]));
  return out;
}

function operation(def: CollectionDef, kind: Kind): JsonObject {
  const [path, method, kindOfAccess] = SOURCE[kind];
  const source = publishedOperation(path, method);
  const name = def.name;
  const { security, rules, forbidden } = access(def, kindOfAccess);
  const op: JsonObject = {
    operationId: `${name}.${kind}`,
    tags: [name],
    summary: SUMMARY[kind](name),
    description: `${rules.join(' ')}\n\n${String(source.description ?? '')}`,
    security,
  };
  const params = parametersFor(def, kind, (source.parameters as JsonObject[] | undefined) ?? []);
  if (params.length) op.parameters = params;
  const responses = { ...(source.responses as JsonObject) };
  const ok = (status: string, schema: Schema) => {
    responses[status] = { ...(responses[status] as JsonObject), content: json(schema) };
  };
  const body = (schema: Schema, example: Json) => {
    op.requestBody = { required: true, content: json(schema, example) };
  };
  switch (kind) {
    case 'list':
      ok('200', { anyOf: [schemaRef(`${name}.List`), shared('Count')] });
      break;
    case 'create':
      body(schemaRef(`${name}.Create`), exampleOf(def));
      ok('201', schemaRef(`${name}.One`));
      break;
    case 'bulk':
      body(schemaRef(`${name}.Bulk`), { documents: [exampleOf(def)] });
      ok('201', schemaRef(`${name}.Many`));
      break;
    case 'update':
    case 'patch':
      body(schemaRef(`${name}.Update`), exampleOf(def, { update: true }));
      ok('200', schemaRef(`${name}.One`));
      break;
    case 'aggregate':
    case 'bulkDelete':
    case 'bulkRestore':
      op.requestBody = source.requestBody!;
      break;
    case 'get':
    case 'restore':
      ok('200', schemaRef(`${name}.One`));
      break;
    case 'delete':
      break;
  }
  responses['403'] = forbiddenResponse(forbidden);
  op.responses = responses;
  return op;
}

/** The path items of one collection, keyed by path. */
export function collectionPaths(def: CollectionDef): Record<string, JsonObject> {
  const base = `/api/data/${def.name}`;
  const idParam: JsonObject = {
    name: 'id',
    in: 'path',
    required: true,
    description: `The \`_id\` of a ${def.name} document (24 hex characters; anything else is a 400).`,
    example: '65f1c2a4b7e8d90012345678',
    schema: { type: 'string', pattern: '^[0-9a-fA-F]{24}$' },
  };
  return {
    [base]: { get: operation(def, 'list'), post: operation(def, 'create') },
    [`${base}/bulk`]: { post: operation(def, 'bulk') },
    [`${base}/bulk/delete`]: { post: operation(def, 'bulkDelete') },
    [`${base}/bulk/restore`]: { post: operation(def, 'bulkRestore') },
    [`${base}/aggregate`]: { post: operation(def, 'aggregate') },
    [`${base}/{id}`]: {
      parameters: [idParam],
      get: operation(def, 'get'),
      put: operation(def, 'update'),
      patch: operation(def, 'patch'),
      delete: operation(def, 'delete'),
    },
    [`${base}/{id}/restore`]: { parameters: [idParam], post: operation(def, 'restore') },
  };
}

/** The component schemas of one collection (its document, inputs and envelopes). */
export function collectionEnvelopes(name: string): Record<string, Schema> {
  const envelope = (data: Schema, extra: Record<string, Schema> = {}, required: string[] = []) => ({
    type: 'object',
    required: ['success', 'data', 'message', ...required],
    properties: { success: { const: true }, data, message: { type: 'string' }, ...extra },
  });
  return {
    [`${name}.One`]: envelope(schemaRef(name)),
    [`${name}.Many`]: envelope({ type: 'array', items: schemaRef(name) }),
    [`${name}.List`]: envelope(
      { type: 'array', items: schemaRef(name) },
      { pagination: shared('DataPagination') },
      ['pagination'],
    ),
    [`${name}.Bulk`]: {
      type: 'object',
      additionalProperties: false,
      required: ['documents'],
      properties: {
        documents: { type: 'array', minItems: 1, maxItems: 100, items: schemaRef(`${name}.Create`) },
      },
    },
  };
}
