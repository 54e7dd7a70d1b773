// Reads a project's own OpenAPI document (built by src/services/project-api/) into what the API
// reference page shows: the server, the key schemes, the operations by tag and each collection's
// fields. Only the shapes that builder produces are interpreted; anything else is shown as-is.

type Json = Record<string, unknown>;

export interface SecurityScheme {
  name: string;
  how: string;
  description: string;
}

export interface Operation {
  method: string;
  path: string;
  summary: string;
  operationId: string;
  /** Alternatives, each a set of schemes sent together (`publishableKey + bearerAuth`). */
  keys: string[];
  /** The refusal codes its 403 names (`PUBLISHABLE_KEY_READ_ONLY`), and the 403's own text. */
  forbiddenCodes: string[];
  forbidden: string;
}

export interface TagGroup {
  name: string;
  description: string;
  operations: Operation[];
}

export interface FieldRow {
  /** Dot path for sub-fields of Object fields (`meta.color`). */
  name: string;
  type: string;
  required: boolean;
  default?: string;
  unique: boolean;
  ref?: string;
  description: string;
}

export interface CollectionView {
  name: string;
  fields: FieldRow[];
  closed: boolean;
}

export interface ReferenceView {
  title: string;
  version: string;
  serverUrl: string;
  schemes: SecurityScheme[];
  groups: TagGroup[];
  collections: CollectionView[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const SYSTEM_FIELDS = new Set(['_id', 'isDeleted', 'deletedAt', 'createdAt', 'updatedAt']);
const obj = (value: unknown): Json =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** Follows one local `$ref` (`#/components/responses/X`) inside the document. */
function resolve(doc: Json, node: unknown): Json {
  const ref = str(obj(node).$ref);
  if (!ref.startsWith('#/')) return obj(node);
  let at: unknown = doc;
  for (const part of ref.slice(2).split('/')) at = obj(at)[part];
  return obj(at);
}

function schemeText(scheme: Json): string {
  if (scheme.type === 'apiKey') return `${str(scheme.name)} ${str(scheme.in)}`;
  if (scheme.type === 'http') return `Authorization: ${str(scheme.scheme)}`.replace(': bearer', ': Bearer');
  return str(scheme.type);
}

/** A schema's type in words: `string`, `number or null`, `date-time`, `id`, `array of (id or null)`. */
export function typeText(schema: Json): string {
  const parts: string[] = [];
  if (Array.isArray(schema.anyOf)) {
    for (const option of schema.anyOf as Json[]) {
      const text = option.type === 'null' ? 'null' : typeText(option);
      if (!parts.includes(text)) parts.push(text);
    }
    return parts.join(' or ');
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [str(schema.type) || 'any'];
  for (const type of types) {
    if (type === 'string' && schema.format === 'date-time') parts.push('date-time');
    else if (type === 'string' && schema.pattern === '^[0-9a-f]{24}$') parts.push('id');
    else if (type === 'array') {
      const items = typeText(obj(schema.items));
      parts.push(`array of ${items.includes(' or ') ? `(${items})` : items}`);
    } else parts.push(type);
  }
  return parts.join(' or ');
}

/** The collection a field points to: the `$ref` of its populated shape (`users.Populated` = users). */
function refTarget(schema: unknown, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const node = obj(schema);
  const ref = str(node.$ref);
  if (ref)
    return ref
      .split('/')
      .pop()!
      .replace(/\.Populated$/, '');
  for (const key of ['anyOf', 'items']) {
    const inner = node[key];
    for (const option of Array.isArray(inner) ? inner : [inner]) {
      const found = refTarget(option, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/** The object schema of an Object field, whether it may be null or not. */
function objectOf(schema: Json): Json | undefined {
  if (schema.properties) return schema;
  const options = Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]) : [];
  return options.find((o) => o.properties);
}

function fieldRows(read: Json, create: Json, populated: Json, prefix: string, into: FieldRow[]) {
  const required = new Set((create.required as string[] | undefined) ?? []);
  for (const [name, raw] of Object.entries(obj(read.properties))) {
    if (!prefix && SYSTEM_FIELDS.has(name)) continue;
    const schema = obj(raw);
    const populatedField = obj(obj(populated.properties)[name]);
    into.push({
      name: prefix + name,
      type: typeText(schema),
      required: required.has(name),
      default: schema.default === undefined ? undefined : JSON.stringify(schema.default),
      unique: schema['x-unique'] === true,
      ref: populated.properties ? refTarget(populatedField) : undefined,
      description: str(schema.description),
    });
    const inner = objectOf(schema);
    if (inner) {
      const createInner = objectOf(obj(obj(create.properties)[name])) ?? {};
      const populatedInner = objectOf(populatedField) ?? {};
      fieldRows(inner, createInner, populatedInner, `${prefix}${name}.`, into);
    }
  }
}

export function readReference(doc: Json): ReferenceView {
  const info = obj(doc.info);
  const components = obj(doc.components);
  const schemas = obj(components.schemas);
  const schemes = Object.entries(obj(components.securitySchemes)).map(([name, raw]) => ({
    name,
    how: schemeText(obj(raw)),
    description: str(obj(raw).description),
  }));

  const groups = new Map<string, TagGroup>();
  for (const tag of (doc.tags as Json[] | undefined) ?? [])
    groups.set(str(tag.name), { name: str(tag.name), description: str(tag.description), operations: [] });
  for (const [path, rawItem] of Object.entries(obj(doc.paths))) {
    const item = obj(rawItem);
    for (const method of METHODS) {
      const op = obj(item[method]);
      if (!item[method]) continue;
      const tag = str((op.tags as unknown[] | undefined)?.[0]) || 'Other';
      if (!groups.has(tag)) groups.set(tag, { name: tag, description: '', operations: [] });
      const security = (op.security ?? doc.security ?? []) as Json[];
      const forbidden = str(resolve(doc, obj(op.responses)['403']).description);
      groups.get(tag)!.operations.push({
        method: method.toUpperCase(),
        path,
        summary: str(op.summary),
        operationId: str(op.operationId),
        keys: security.map((req) => Object.keys(req).join(' + ') || 'none'),
        forbiddenCodes: [...new Set([...forbidden.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!))],
        forbidden,
      });
    }
  }

  const collections: CollectionView[] = [];
  for (const tag of groups.keys()) {
    const read = obj(schemas[tag]);
    if (!read.properties) continue;
    const fields: FieldRow[] = [];
    fieldRows(
      read,
      obj(schemas[`${tag}.Create`] ?? schemas[`${tag}.Signup`]),
      obj(schemas[`${tag}.Populated`]),
      '',
      fields,
    );
    collections.push({ name: tag, fields, closed: read.additionalProperties === false });
  }

  return {
    title: str(info.title),
    version: str(info.version),
    serverUrl: str(obj((doc.servers as unknown[] | undefined)?.[0]).url),
    schemes,
    groups: [...groups.values()].filter((g) => g.operations.length > 0),
    collections,
  };
}
