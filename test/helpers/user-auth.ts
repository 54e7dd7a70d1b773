// Fixtures of the end-user auth suites: the suite's app and project, a project with a `users`
// collection (made through the collections service, indexes included), a client carrying its
// publishable key, and checks that no response ever carries a password hash.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestApp, type TestApp } from './app.js';
import type { ApiResponse } from './client.js';
import { contextFor, createProjectFixture, type ProjectFixture } from './fixtures.js';
import type { FieldDef, ProjectSettings } from '../../src/services/types.js';

/** The fields a `users` collection needs at the least: a unique email, a password, a name. */
export const USER_BASE_FIELDS: FieldDef[] = [
  { name: 'email', type: 'String', required: true, unique: true },
  { name: 'password', type: 'String', required: true },
  { name: 'name', type: 'String' },
];

export const USER_FIELDS: FieldDef[] = [
  ...USER_BASE_FIELDS,
  { name: 'username', type: 'String', unique: true },
  { name: 'avatar', type: 'String' },
  { name: 'bio', type: 'String' },
  { name: 'age', type: 'Number' },
  { name: 'plan', type: 'String', default: 'free' },
  { name: 'preferences', type: 'Object', fields: [{ name: 'theme', type: 'String' }] },
];

export interface AuthProject extends ProjectFixture {
  app: TestApp;
}

export async function authProject(
  app: TestApp,
  options: {
    fields?: FieldDef[] | null;
    mode?: 'schema' | 'flexible';
    settings?: Partial<ProjectSettings>;
  } = {},
): Promise<AuthProject> {
  const fixture = await createProjectFixture(app.services, 'Auth app');
  if (options.settings) {
    fixture.project = await app.services.projects.update(fixture.project, { settings: options.settings });
  }
  if (options.fields !== null) {
    await app.services.collections.create(contextFor({ developer: fixture.developer }), fixture.project.id, {
      name: 'users',
      mode: options.mode ?? 'schema',
      fields: options.fields ?? USER_FIELDS,
    });
  }
  return { ...fixture, app };
}

/**
 * The usual end-user auth suite: a public app (sign-up limit lifted) and an `authProject` on it.
 * Call it inside `describe`: it registers the `before` and `after` hooks. `app` and `p` are filled
 * in by `before`, so they can be destructured right away; `env` is read there too, after any
 * `before` hook registered earlier (such as one starting the OAuth mocks) has run.
 */
export function useAuthSuite(
  suite: string,
  options: { env?: () => Record<string, string>; project?: Parameters<typeof authProject>[1] } = {},
) {
  const app = {} as TestApp;
  const p = {} as AuthProject;
  before(async () => {
    // All of a suite's requests come from one address: the per-client share of the publishable
    // budget (20 %, docs/rate-limits.md) is the rate-limit suites' to test, not the auth suites'.
    const env = {
      RATE_LIMIT_CLIENT_SHARE_PERCENT: '100',
      ...options.env?.(),
      USER_AUTH_SIGNUPS_PER_HOUR: '10000',
    };
    Object.assign(app, await startTestApp('public', suite, env));
    Object.assign(p, await authProject(app, options.project));
  });
  after(() => app.close());
  return { app, p };
}

export const keyed = (p: AuthProject, key = p.publishableKey) => p.app.client.with({ 'x-api-key': key });
export const bearer = (p: AuthProject, accessToken: string) =>
  p.app.client.with({ 'x-api-key': p.publishableKey, authorization: `Bearer ${accessToken}` });

export const newEmail = (tag = 'user') => `${tag}-${randomBytes(5).toString('hex')}@example.test`;
export const PASSWORD = 'correct horse battery';

/** Signs a user up over HTTP and returns the session data. */
export async function signup(p: AuthProject, extra: Record<string, unknown> = {}, email = newEmail()) {
  const res = await keyed(p).post('/api/userAuth/signup', { email, password: PASSWORD, ...extra });
  expect(res.status, res.text).to.equal(201);
  return { email, ...(res.body.data as { user: any; accessToken: string; refreshToken: string }) };
}

/** No response may carry a password hash or a `password` key, at any depth. */
export function expectNoSecrets(res: ApiResponse): void {
  expect(res.text).not.to.include('$argon2');
  expect(res.text).not.to.match(/"password"\s*:/);
}

/** The value of a Set-Cookie header for `name`, and its attributes. */
export function cookieOf(res: ApiResponse, name: string): { value: string; attributes: string } | undefined {
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';');
    const [key, ...value] = pair!.split('=');
    if (key!.trim() === name)
      return { value: value.join('='), attributes: attributes.join(';').toLowerCase() };
  }
  return undefined;
}

/** The refresh cookie's name for a project: `baas_refresh_<projectId>` (before any wire prefix). */
export const refreshCookieOf = (p: { project: { id: string } }) => `baas_refresh_${p.project.id}`;
