// Which fields of a user document leave the service, and which the client may write. The password
// hash never appears in any response; the public profile is an allowlist. End users write only
// fields the users schema declares, checked as in schema mode whatever the collection's mode; the
// schema may mark fields `protected` (end users cannot write them) and `private` (shown only to
// the user themself and the project's server side).
import { badRequest } from '../../http/errors.js';
import type { CollectionDef } from '../types.js';

/** Never returned by any endpoint (also to be stripped by populate and aggregation over users). */
export const SECRET_USER_FIELDS: readonly string[] = ['password'];

/** Managed by the auth service: not settable at sign-up or through update-profile. */
export const AUTH_MANAGED_FIELDS: ReadonlySet<string> = new Set([
  'email',
  'password',
  'emailVerified',
  'identities',
  'disabled',
  'disabledAt',
]);

/** What `GET /api/userAuth/public/{username}` shows of a user. */
export const PUBLIC_PROFILE_FIELDS: readonly string[] = ['_id', 'username', 'name', 'avatar', 'createdAt'];

const INTERNAL = new Set([...SECRET_USER_FIELDS, 'isDeleted', 'deletedAt']);

/** The user as its owner sees it: every stored field except secrets and trash bookkeeping. */
export function userView(user: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(user)) if (!INTERNAL.has(key)) out[key] = value;
  return out;
}

const flagged = (def: CollectionDef, flag: 'protected' | 'private') =>
  new Set(def.fields.filter((f) => f[flag]).map((f) => f.name));

/** 400 FIELD_PROTECTED naming the first key (or dot path) of `body` that writes a protected field. */
export function refuseProtectedFields(def: CollectionDef, body: Record<string, unknown>): void {
  const guarded = flagged(def, 'protected');
  if (!guarded.size) return;
  const key = Object.keys(body).find((k) => guarded.has(k.split('.')[0]!));
  if (key === undefined) return;
  const message = `${key} is a protected field: only the project's secret key or a dashboard admin may set it`;
  throw badRequest(message, [{ path: `body.${key}`, message }], 'FIELD_PROTECTED');
}

/** The users definition end users write through: schema mode (declared fields only, typed). */
export const endUserWrites = (def: CollectionDef): CollectionDef =>
  def.mode === 'schema' ? def : { ...def, mode: 'schema' };

/**
 * 400 UNDECLARED_FIELD naming every key (or dot path) of `body` whose field the users schema does
 * not declare, `also` aside (the credentials at sign-up, the display name): whatever else a client
 * sends (`role`, `plan`, ...) is the developer's to add, never the end user's, flexible mode too.
 */
export function refuseUndeclaredFields(
  def: CollectionDef,
  body: Record<string, unknown>,
  also: readonly string[],
): void {
  const declared = new Set([...def.fields.map((f) => f.name), ...also]);
  const keys = Object.keys(body).filter((key) => !declared.has(key.split('.')[0]!));
  if (!keys.length) return;
  const message =
    `${keys.join(', ')} ${keys.length === 1 ? 'is not a field' : 'are not fields'} of the users schema: ` +
    'end users may set only the fields it declares (declare it, or set it with the secret key)';
  throw badRequest(
    message,
    keys.map((key) => ({ path: `body.${key}`, message: `${key} is not declared in the users schema` })),
    'UNDECLARED_FIELD',
  );
}

/** The user without the schema's private fields: what anyone but the user themself may see. */
export function withoutPrivateFields(def: CollectionDef, user: Record<string, unknown>) {
  const hidden = flagged(def, 'private');
  if (!hidden.size) return user;
  return Object.fromEntries(Object.entries(user).filter(([key]) => !hidden.has(key)));
}

/** The allowlisted fields, less those the users schema marks private. */
export function publicProfileView(
  user: Record<string, unknown>,
  def?: CollectionDef,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of PUBLIC_PROFILE_FIELDS) if (user[key] !== undefined) out[key] = user[key];
  return def ? withoutPrivateFields(def, out) : out;
}
