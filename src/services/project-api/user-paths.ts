// The end-user operations (/api/userAuth) of a project document, typed by the project's users
// schema: the user as they see themself (private fields included, never the password), as
// others see them (populated, public profile: private fields left out), and the bodies of
// sign-up and profile updates (protected and service-managed fields left out; nothing else is
// accepted). The publishable key's copy names no private or protected field at all.
import { AUTH_MANAGED_FIELDS, PUBLIC_PROFILE_FIELDS } from '../user-auth/fields.js';
import type { CollectionDef, FieldDef } from '../types.js';
import { objectSchema, orNull, schemaRef, updateSchema, type Schema } from './field-schemas.js';
import { exampleOf } from './examples.js';
import { publishedOperation, SHARED_PREFIX, type JsonObject } from './published.js';

const USER_OPERATIONS: [path: string, method: string][] = [
  ['/api/userAuth/signup', 'post'],
  ['/api/userAuth/login', 'post'],
  ['/api/userAuth/refresh-token', 'post'],
  ['/api/userAuth/logout', 'post'],
  ['/api/userAuth/me', 'get'],
  ['/api/userAuth/update-profile', 'put'],
  ['/api/userAuth/change-password', 'put'],
  ['/api/userAuth/verify-email', 'post'],
  ['/api/userAuth/resend-verification-otp', 'post'],
  ['/api/userAuth/request-password-reset', 'post'],
  ['/api/userAuth/reset-password', 'post'],
  ['/api/userAuth/public/{username}', 'get'],
  ['/api/userAuth/social/exchange', 'post'],
];

/** Published schemas replaced by the project's own. */
const TYPED: Record<string, string> = {
  [`#/components/schemas/${SHARED_PREFIX}UserAuthSessionEnvelope`]: 'users.Session',
  [`#/components/schemas/${SHARED_PREFIX}EndUserEnvelope`]: 'users.One',
  [`#/components/schemas/${SHARED_PREFIX}EndUserPublicProfileEnvelope`]: 'users.PublicProfileOne',
};

function retype(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(retype);
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: string }).$ref;
  if (ref && TYPED[ref]) return schemaRef(TYPED[ref]);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, retype(v)]));
}

/** Either key, as published; a Bearer token where the operation needs one. */
function security(published: JsonObject[] | undefined): JsonObject[] {
  if (!published?.length) return [];
  const bearer = published.some((r) => 'bearerAuth' in r);
  return bearer
    ? [
        { publishableKey: [], bearerAuth: [] },
        { secretKey: [], bearerAuth: [] },
      ]
    : [{ publishableKey: [] }, { secretKey: [] }];
}

export function userPaths(users: CollectionDef): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {};
  for (const [path, method] of USER_OPERATIONS) {
    const op = retype(publishedOperation(path, method)) as JsonObject;
    op.security = security(op.security as JsonObject[] | undefined);
    op.tags = ['users'];
    const typedBody = path.endsWith('/signup')
      ? 'users.Signup'
      : path.endsWith('/update-profile')
        ? 'users.ProfileUpdate'
        : undefined;
    if (typedBody) {
      const example = typedBody === 'users.Signup' ? signupExample(users) : profileExample(users);
      const media = { schema: schemaRef(typedBody), ...(example ? { example } : {}) };
      op.requestBody = { required: true, content: { 'application/json': media } } as JsonObject;
    }
    paths[path] = { ...paths[path], [method]: op };
  }
  return paths;
}

const declared = (users: CollectionDef, name: string) => users.fields.some((f) => f.name === name);
const notSecret = (f: FieldDef) => f.name !== 'password';
const writable = (f: FieldDef) => !AUTH_MANAGED_FIELDS.has(f.name) && !f.protected;

const writableFields = (users: CollectionDef) => users.fields.filter(writable);

function signupExample(users: CollectionDef): JsonObject {
  const required = writableFields(users).filter((f) => f.required);
  return {
    email: 'ada@example.com',
    password: 'correct horse battery',
    ...exampleOf({ ...users, fields: required, rls: { ...users.rls, enabled: false } }),
  };
}

function profileExample(users: CollectionDef): JsonObject | undefined {
  const fields = writableFields(users);
  return fields.length ? exampleOf({ ...users, fields }, { update: true }) : undefined;
}

const envelope = (data: Schema): Schema => ({
  type: 'object',
  required: ['success', 'data', 'message'],
  properties: { success: { const: true }, data, message: { type: 'string' } },
});

/**
 * Who reads the document: `publishable` (a browser app, so possibly anyone) gets a users schema
 * without the private and protected fields; the secret key and the project's members get them all.
 */
export type Audience = 'full' | 'publishable';

/** The users definition a document may name: without private and protected fields for `publishable`. */
export const namedUsersFields = (users: CollectionDef, audience: Audience): CollectionDef =>
  audience === 'full' ? users : { ...users, fields: users.fields.filter((f) => !f.private && !f.protected) };

const UNNAMED_FIELDS =
  ' The project may keep fields that this document, read with the publishable key, does not name.';

export function userSchemas(allUsers: CollectionDef, audience: Audience = 'full'): Record<string, Schema> {
  const users = namedUsersFields(allUsers, audience);
  const nameField: Schema = orNull({ type: 'string', description: 'The display name given at sign-up.' });
  const withSystem = (schema: Schema, extra: Record<string, Schema>, required: string[]) => {
    schema.properties = {
      _id: { type: 'string', pattern: '^[0-9a-f]{24}$' },
      ...extra,
      ...(schema.properties as object),
    };
    schema.required = [
      ...new Set(['_id', ...required, ...((schema.required as string[] | undefined) ?? [])]),
    ];
    return schema;
  };
  const timestamps = {
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  };
  const self = withSystem(
    objectSchema(users, users.fields.filter(notSecret), 'read'),
    {
      emailVerified: { type: 'boolean' },
      identities: {
        type: 'array',
        description: 'Linked social login accounts.',
        items: {
          type: 'object',
          required: ['provider', 'id'],
          properties: { provider: { type: 'string', enum: ['github', 'google'] }, id: { type: 'string' } },
        },
      },
      ...(declared(users, 'name') ? {} : { name: nameField }),
      disabled: { type: 'boolean' },
      disabledAt: { type: 'string', format: 'date-time' },
      ...timestamps,
    },
    ['email', 'createdAt', 'updatedAt'],
  );
  self.description = 'The signed-in user as they see themself: private fields included, never the password.';

  const visible = users.fields.filter((f) => notSecret(f) && !f.private);
  // The publishable key sees the public profile of a populated user; the secret key sees more.
  const beyondProfile = visible.filter((f) => !PUBLIC_PROFILE_FIELDS.includes(f.name)).map((f) => f.name);
  const populated = withSystem(
    objectSchema(
      { ...users, mode: 'schema' },
      audience === 'full' ? visible : visible.filter((f) => PUBLIC_PROFILE_FIELDS.includes(f.name)),
      'read',
      { optional: new Set(beyondProfile) },
    ),
    timestamps,
    ['createdAt'],
  );
  populated.description =
    'A user as a populated Ref shows them: with the publishable key only the public profile ' +
    '(`username`, `name`, `avatar`, `createdAt`, less private fields); with the secret key every ' +
    'declared field but `password` and the private ones, `email` and `updatedAt` included.';
  if (audience === 'publishable') {
    for (const schema of [self, populated]) {
      schema.additionalProperties = true;
      schema.description += UNNAMED_FIELDS;
    }
  }

  const profile = objectSchema(
    { ...users, mode: 'schema' },
    visible.filter((f) => PUBLIC_PROFILE_FIELDS.includes(f.name)),
    'read',
  );
  profile.properties = { _id: { type: 'string' }, ...(profile.properties as object) };
  profile.required = ['_id'];

  const signupFields = users.fields.filter((f) => writable(f));
  const signup = objectSchema(users, signupFields, 'input');
  signup.properties = {
    email: { type: 'string', format: 'email', maxLength: 254 },
    password: { type: 'string', minLength: 8, maxLength: 128 },
    ...(declared(users, 'name') ? {} : { name: nameField }),
    ...(signup.properties as object),
  };
  signup.required = ['email', 'password', ...((signup.required as string[] | undefined) ?? [])];

  // Only declared fields are accepted, in flexible mode too (a 400 names the others); the
  // publishable copy leaves the private ones unnamed, so it cannot close the bodies.
  const unnamed = allUsers.fields.some((f) => writable(f) && !users.fields.includes(f));
  signup.additionalProperties = unnamed;
  const profileUpdate = updateSchema({ ...users, fields: signupFields });
  profileUpdate.additionalProperties = unnamed;

  return {
    users: self,
    'users.Populated': populated,
    'users.PublicProfile': profile,
    'users.Signup': signup,
    'users.ProfileUpdate': profileUpdate,
    'users.One': envelope(schemaRef('users')),
    'users.PublicProfileOne': envelope(schemaRef('users.PublicProfile')),
    'users.Session': envelope({
      allOf: [
        schemaRef(`${SHARED_PREFIX}UserAuthTokens`),
        { type: 'object', required: ['user'], properties: { user: schemaRef('users') } },
      ],
    }),
  };
}
