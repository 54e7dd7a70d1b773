// The contract as integrators meet it: types generated from the published /openapi.json of the
// running public and dashboard roles (openapi-typescript), a small openapi-fetch program
// (test/typed-client/flow.ts) type-checked against them with tsc, then run over HTTP on the real
// stack: developer sign-up, project, collection, end-user sign-up, insert, query, a presigned
// upload, and deletes.
import { expect } from 'chai';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { repoPath } from '../../src/lib/paths.js';
import { startTestApps } from '../helpers/app.js';
import {
  generateClientTypes,
  typeCheck,
  typedClientWorkspace,
  type TypedClientWorkspace,
} from '../helpers/typed-client.js';
import { mailbox } from '../helpers/mail.js';
import { signupTokenOf } from '../helpers/signup.js';

// The shape of test/typed-client/flow.ts, which the project's own compilation leaves out (its
// types exist only in the workspace).
type RunFlow = (input: {
  publicUrl: string;
  dashboardUrl: string;
  email: string;
  password: string;
  confirmationToken: (email: string) => Promise<string>;
}) => Promise<{
  projectId: string;
  userId: string;
  noteId: string;
  listed: { _id: string; text: unknown; userId: unknown }[];
  fileUrl: string | null;
  fileBody: string;
  deletedNoteId: string;
  deletedFile: string;
  afterDelete: number;
}>;

describe('typed client generated from the published OpenAPI documents', function () {
  this.timeout(120_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let workspace: TypedClientWorkspace;

  before(async () => {
    apps = await startTestApps('typed_client');
    workspace = typedClientWorkspace();
    await generateClientTypes(`${apps.public.url}/openapi.json`, workspace.file('public.d.ts'));
    await generateClientTypes(`${apps.dashboard.url}/openapi.json`, workspace.file('dashboard.d.ts'));
    copyFileSync(repoPath('test', 'typed-client', 'flow.ts'), workspace.file('flow.ts'));
  });
  after(async () => {
    workspace?.remove();
    await apps?.close();
  });

  it('generates types for every operation of both documents', () => {
    const publicTypes = readFileSync(workspace.file('public.d.ts'), 'utf8');
    const dashboardTypes = readFileSync(workspace.file('dashboard.d.ts'), 'utf8');
    expect(publicTypes).to.include('"/api/data/{collectionName}"');
    expect(publicTypes).to.include('"/api/storage/upload-request"');
    expect(dashboardTypes).to.include('"/api/projects/{projectId}/collections"');
  });

  it('type-checks the program with tsc, and refuses a program that misuses the API', async () => {
    // A misuse next to the program, checked in the same tsc run: the check must be able to fail.
    writeFileSync(
      workspace.file('misuse.ts'),
      [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './public.js';",
        "const api = createClient<paths>({ baseUrl: 'http://localhost' });",
        "await api.POST('/api/storage/upload-request', { body: { filename: 'a.txt', size: 'big' } });",
        'export {};',
      ].join('\n'),
    );
    const result = await typeCheck(workspace, ['flow.ts', 'misuse.ts']);
    const errors = result.output.split('\n').filter((line) => line.includes('error TS'));
    expect(
      errors.filter((line) => !line.includes('misuse.ts(4,')),
      result.output,
    ).to.deep.equal([]);
    expect(errors.length, result.output).to.be.greaterThan(0);
    expect(result.ok).to.equal(false);
  });

  it('runs the flow over HTTP: sign-up, project, collection, end user, insert, query, upload, delete', async () => {
    const { runFlow } = (await import(pathToFileURL(workspace.file('flow.ts')).href)) as { runFlow: RunFlow };
    const email = `typed-${Date.now()}@example.com`;
    const inbox = mailbox(email);
    await inbox.skipExisting();
    const result = await runFlow({
      publicUrl: apps.public.url,
      dashboardUrl: apps.dashboard.url,
      email,
      password: 'correct horse battery staple',
      confirmationToken: async () => signupTokenOf(await inbox.next())!,
    });
    expect(result.projectId).to.match(/^[0-9a-f]{24}$/);
    expect(result.listed).to.deep.equal([{ _id: result.noteId, text: 'typed hello', userId: result.userId }]);
    expect(result.deletedNoteId).to.equal(result.noteId);
    expect(result.deletedFile).to.match(new RegExp(`^${result.projectId}/[0-9a-f-]{36}_hello\\.txt$`));
    if (result.fileUrl) expect(result.fileBody).to.equal('hello from a typed client');
    expect(result.afterDelete).to.equal(404);
  });
});
