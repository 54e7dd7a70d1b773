// Which fields of a user document leave the service, and which the client may never write. The
// password hash never appears in any response; the public profile is an allowlist.

/** Never returned by any endpoint (also to be stripped by populate and aggregation over users). */
export const SECRET_USER_FIELDS: readonly string[] = ['password'];

/** Managed by the auth service: not settable at sign-up or through update-profile. */
export const AUTH_MANAGED_FIELDS: ReadonlySet<string> = new Set([
  'email',
  'password',
  'emailVerified',
  'identities',
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

export function publicProfileView(user: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of PUBLIC_PROFILE_FIELDS) if (user[key] !== undefined) out[key] = user[key];
  return out;
}
