// End-user accounts: sign-up (custom fields validated against the users schema), login (no hint
// whether the email exists, same timing, rate-limited per email and IP), profile, password change
// (signs out the other sessions) and the public profile.
import { badRequest, conflict, notFound, unauthorized, validationFailed } from '../../http/errors.js';
import { dummyHash, hashPassword, verifyPassword } from '../../lib/passwords.js';
import type { UserWrite } from '../../db/users.js';
import type { RequestContext } from '../context.js';
import { assertSafeFieldNames, validateDocument } from '../schema/validate-document.js';
import type { CollectionDef } from '../types.js';
import { assertRoomForChange, assertRoomForUser } from './usage.js';
import {
  AUTH_MANAGED_FIELDS,
  endUserWrites,
  publicProfileView,
  refuseProtectedFields,
  refuseUndeclaredFields,
  userView,
} from './fields.js';
import { emailKey, ipKey } from './rate-limits.js';
import { insertAnnounced } from './new-user.js';
import { LIMITS, normalizeEmail, takeSignup, type UserAuthKit } from './kit.js';

const INVALID_CREDENTIALS = 'Invalid email or password';
const userGone = () => unauthorized('The user of this token no longer exists', 'USER_NOT_FOUND');

function refuseManagedFields(body: Record<string, unknown>, allowed: string[]): void {
  for (const key of Object.keys(body)) {
    const field = key.split('.')[0]!;
    if (AUTH_MANAGED_FIELDS.has(field) && !allowed.includes(key)) {
      const message = `${key} cannot be set here`;
      throw badRequest(message, [{ path: `body.${key}`, message }], 'FIELD_NOT_ALLOWED');
    }
  }
}

/** The display name of the spec, which end users may set whether or not the schema declares it. */
const DISPLAY_NAME = 'name';

/**
 * The fields of an end user's write, validated against the users schema as in schema mode. `name`
 * is the spec's optional display name: a users schema that declares it validates it (its type
 * wins); otherwise it must be a string and is kept.
 */
function endUserFields(
  def: CollectionDef,
  body: Record<string, unknown>,
  mode: 'create' | 'update',
): Record<string, unknown> {
  const { name, ...rest } = body;
  const declared = def.fields.some((f) => f.name === DISPLAY_NAME);
  const fields = validateDocument(endUserWrites(def), declared ? body : rest, mode);
  delete fields.password;
  if (!declared && name !== undefined) {
    if (typeof name !== 'string') {
      throw validationFailed('Validation failed: name must be a string', [
        { path: 'name', message: 'name must be a string' },
      ]);
    }
    fields.name = name;
  }
  return fields;
}

function written(result: UserWrite | undefined): Record<string, unknown> {
  if (!result) throw userGone();
  if (result.ok) return userView(result.user);
  const field = result.duplicateField ?? 'a unique field';
  if (field === 'email') throw conflict('Email already registered', 'EMAIL_TAKEN');
  throw conflict(`A user with this ${field} already exists`, 'DUPLICATE_VALUE', [
    { path: `body.${field}`, message: `${field} must be unique` },
  ]);
}

/** Fields a beforeSignUp hook sets, checked like a client's own: a hook cannot set more. */
export function checkedHookFields(def: CollectionDef, set: Record<string, unknown>) {
  refuseManagedFields(set, []);
  refuseProtectedFields(def, set);
  assertSafeFieldNames(set, { allowDotPaths: false });
  refuseUndeclaredFields(def, set, [DISPLAY_NAME]);
  return set;
}

export function accountsPart(kit: UserAuthKit) {
  const { guard, users, sessions, limits } = kit;

  return {
    async signup(ctx: RequestContext, body: Record<string, unknown> & { email: string; password: string }) {
      const { project, users: def } = await guard.scope(ctx);
      await takeSignup(kit, project.id, ctx.ip);
      refuseManagedFields(body, ['email', 'password']);
      refuseProtectedFields(def, body);
      assertSafeFieldNames(body, { allowDotPaths: false });
      refuseUndeclaredFields(def, body, ['email', 'password', DISPLAY_NAME]);
      const email = normalizeEmail(body.email);
      const { password: _password, email: _email, ...profile } = body;
      const set = await kit.hooks?.beforeSignUp(
        project,
        { email, fields: profile, provider: 'password' },
        ctx.ip,
      );
      if (set) Object.assign(body, checkedHookFields(def, set));
      const fields = { ...endUserFields(def, { ...body, email }, 'create'), email, emailVerified: false };
      const passwordHash = await hashPassword(body.password);
      await assertRoomForUser(users, kit.quota, project, fields, passwordHash);
      const user = written(await insertAnnounced(kit, project.id, def, fields, passwordHash));
      await kit.codes.issue(project, 'verify-email', email, ctx.log);
      await limits.record(project.id, LIMITS.resendVerification, emailKey(email));
      return { user, session: await sessions.start(project.id, String(user._id)) };
    },

    async login(ctx: RequestContext, rawEmail: string, password: string) {
      const { project } = await guard.scope(ctx);
      const email = normalizeEmail(rawEmail);
      const message = 'Too many failed logins; try again later';
      const client = `${emailKey(email)}:${ipKey(ctx.ip)}`;
      await limits.take(project.id, LIMITS.loginFailuresPerClient, client, message);
      await limits.take(project.id, LIMITS.loginFailuresPerEmail, emailKey(email), message);
      await limits.take(project.id, LIMITS.loginFailuresPerIp, ipKey(ctx.ip), message);
      const found = await users.findByEmail(project.id, email);
      const ok = await verifyPassword(found?.passwordHash ?? (await dummyHash()), password);
      if (!found?.passwordHash || !ok) throw unauthorized(INVALID_CREDENTIALS, 'INVALID_CREDENTIALS');
      // A disabled account answers like a wrong password: a 403 only after the right one would
      // confirm the password to whoever guessed it (the attempt stays counted, like a failure).
      if (found.user.disabled === true) throw unauthorized(INVALID_CREDENTIALS, 'INVALID_CREDENTIALS');
      // A success clears this client's failures on the account and does not count against the
      // account's ceiling or the address.
      await limits.reset(project.id, LIMITS.loginFailuresPerClient, client);
      await limits.release(project.id, LIMITS.loginFailuresPerEmail, emailKey(email));
      await limits.release(project.id, LIMITS.loginFailuresPerIp, ipKey(ctx.ip));
      return { user: userView(found.user), session: await sessions.start(project.id, found.user._id) };
    },

    async me(ctx: RequestContext) {
      const { project, userId } = await guard.userScope(ctx);
      const found = await users.findById(project.id, userId);
      if (!found) throw userGone();
      return userView(found.user);
    },

    async updateProfile(ctx: RequestContext, body: Record<string, unknown>) {
      const { project, users: def, userId } = await guard.userScope(ctx);
      refuseManagedFields(body, []);
      refuseProtectedFields(def, body);
      assertSafeFieldNames(body, { allowDotPaths: true });
      refuseUndeclaredFields(def, body, [DISPLAY_NAME]);
      const set = endUserFields(def, body, 'update');
      const found = await users.findById(project.id, userId);
      if (!found) throw userGone();
      await assertRoomForChange(users, kit.quota, project, found.user, set);
      return written(await users.update(project.id, userId, { set }));
    },

    async changePassword(
      ctx: RequestContext,
      current: string,
      next: string,
      refreshToken: string | undefined,
    ) {
      const { project, userId } = await guard.userScope(ctx);
      const subject = `u:${userId}`;
      await limits.take(
        project.id,
        LIMITS.passwordFailuresPerUser,
        subject,
        'Too many wrong passwords; try again later',
      );
      const found = await users.findById(project.id, userId);
      if (!found) throw userGone();
      if (!found.passwordHash || !(await verifyPassword(found.passwordHash, current))) {
        throw unauthorized('Current password is incorrect', 'INVALID_CREDENTIALS');
      }
      await limits.reset(project.id, LIMITS.passwordFailuresPerUser, subject);
      written(await users.update(project.id, userId, { passwordHash: await hashPassword(next) }));
      const keep = await sessions.familyOf(project.id, userId, refreshToken);
      const revoked = await sessions.revokeAll(project.id, userId, keep);
      return { revokedSessions: revoked, keptCurrentSession: keep !== undefined };
    },

    async publicProfile(ctx: RequestContext, username: string) {
      const { project, users: def } = await guard.scope(ctx);
      const found = await users.findByUsername(project.id, username);
      if (!found) throw notFound('User not found', 'USER_NOT_FOUND');
      return publicProfileView(found.user, def);
    },
  };
}
