// The app the SDK suites call: a public role on a known port (presigned upload URLs are built on
// PUBLIC_URL and must lead back to it), the filesystem store in a folder of its own, an end-user
// project with a `todos` collection under public-read RLS (owner `userId`).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FieldDef, ProjectSettings } from '../../src/services/types.js';
import { startTestApp, type TestApp } from './app.js';
import { contextFor } from './fixtures.js';
import { freePort } from './mongo-server.js';
import { authProject, type AuthProject } from './user-auth.js';

export interface SdkApp {
  app: TestApp;
  p: AuthProject;
  close(): Promise<void>;
}

export async function startSdkApp(
  suite: string,
  todos: { mode: 'schema' | 'flexible'; fields: FieldDef[] },
  options: { env?: Record<string, string>; settings?: Partial<ProjectSettings> } = {},
) {
  const dir = await mkdtemp(path.join(tmpdir(), `baas-${suite}-`));
  const port = await freePort();
  const app = await startTestApp(
    'public',
    suite,
    {
      S3_BUCKET: '',
      STORAGE_DIR: dir,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_CLIENT_SHARE_PERCENT: '100',
      USER_AUTH_SIGNUPS_PER_HOUR: '10000',
      ...options.env,
    },
    port,
  );
  const p = await authProject(app, { settings: options.settings });
  await app.services.collections.create(contextFor({ developer: p.developer }), p.project.id, {
    name: 'todos',
    ...todos,
    fields: [...todos.fields, { name: 'userId', type: 'String' }],
    rls: { enabled: true, mode: 'public-read', ownerField: 'userId' },
  });
  return {
    app,
    p,
    async close() {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  } satisfies SdkApp;
}
