// Setup of the end-user management suites: both roles on the test stack (filesystem store, so
// end-user uploads run in process), an admin, a member and an outsider on the dashboard, a project
// with a users collection (a protected `role`, a private `phone`), an RLS collection `notes` and a
// collection without RLS `open`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { signUpByMail } from '../helpers/signup.js';
import type { ApiClient } from '../helpers/client.js';

export const PASSWORD = 'correct horse battery';
export type Who = 'admin' | 'member' | 'other' | 'none';

export interface EndUsersSuite {
  apps: Awaited<ReturnType<typeof startTestApps>>;
  projectId: string;
  keys: { publishable: string; secret: string };
  cookies: Record<Exclude<Who, 'none'>, string>;
  /** The dashboard client as one of the developers (or nobody). */
  as(who: Who): ApiClient;
  secret: ApiClient;
  pk: ApiClient;
  /** Signs an end user up over HTTP; returns id, email and the session. */
  signup(extra?: Record<string, unknown>): Promise<{
    id: string;
    email: string;
    accessToken: string;
    refreshToken: string;
  }>;
  bearer(accessToken: string): ApiClient;
}

async function developer(dash: ApiClient, email: string) {
  return (await signUpByMail(dash, email, PASSWORD)).cookie;
}

export function useEndUsersSuite(name: string): EndUsersSuite {
  const s = {} as EndUsersSuite;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'baas-end-users-'));
    s.apps = await startTestApps(name, {
      S3_BUCKET: '',
      STORAGE_DIR: dir,
      USER_AUTH_SIGNUPS_PER_HOUR: '10000',
    });
    const dash = s.apps.dashboard.client;
    s.cookies = {
      admin: await developer(dash, 'admin@example.com'),
      member: await developer(dash, 'member@example.com'),
      other: await developer(dash, 'other@example.com'),
    };
    s.as = (who) => (who === 'none' ? dash : dash.with({ cookie: s.cookies[who] }));
    const created = await s.as('admin').post('/api/projects', { name: 'App' });
    s.projectId = created.body.data.project.id;
    s.keys = created.body.data.keys;
    const project = await s.apps.dashboard.services.repos.projects.findById(s.projectId);
    await s.apps.dashboard.services.members.add(project!, 'member@example.com', 'member');
    const collections = `/api/projects/${s.projectId}/collections`;
    for (const body of [
      {
        name: 'users',
        mode: 'schema',
        fields: [
          { name: 'name', type: 'String' },
          { name: 'username', type: 'String', unique: true },
          { name: 'role', type: 'String', default: 'user', protected: true },
          { name: 'phone', type: 'String', private: true },
        ],
      },
      {
        name: 'notes',
        fields: [
          { name: 'text', type: 'String' },
          { name: 'userId', type: 'String' },
        ],
        rls: { enabled: true, mode: 'public-read', ownerField: 'userId' },
      },
      { name: 'open', fields: [{ name: 'userId', type: 'String' }] },
    ]) {
      const res = await s.as('admin').post(collections, body);
      expect(res.status, res.text).to.equal(201);
    }
    s.secret = s.apps.public.client.with({ 'x-api-key': s.keys.secret });
    s.pk = s.apps.public.client.with({ 'x-api-key': s.keys.publishable });
    s.bearer = (token) => s.pk.with({ authorization: `Bearer ${token}` });
    s.signup = async (extra = {}) => {
      const email = `u-${randomBytes(5).toString('hex')}@example.test`;
      const res = await s.pk.post('/api/userAuth/signup', { email, password: PASSWORD, ...extra });
      expect(res.status, res.text).to.equal(201);
      const { user, accessToken, refreshToken } = res.body.data;
      return { id: user._id as string, email, accessToken, refreshToken };
    };
  });
  after(async () => {
    await s.apps.close();
    await rm(dir, { recursive: true, force: true });
  });
  return s;
}

/** No response may carry a password hash or a `password` key. */
export function expectNoSecrets(text: string): void {
  expect(text).not.to.include('$argon2');
  expect(text).not.to.match(/"password"\s*:/);
}
