// `npm run demo` against the test stack's roles: it must create its data through the public
// contract and print a curl line that works as printed.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoPath } from '../../src/lib/paths.js';
import { startTestApps } from '../helpers/app.js';

const run = promisify(execFile);

describe('npm run demo', function () {
  this.timeout(120_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;

  before(async () => {
    apps = await startTestApps('demo');
  });
  after(() => apps?.close());

  it('creates a developer, project, collection and documents, and prints keys and a working curl line', async () => {
    const { stdout } = await run('npm', ['run', '-s', 'demo'], {
      cwd: repoPath(),
      env: { ...process.env, PUBLIC_URL: apps.public.url, DASHBOARD_URL: apps.dashboard.url },
    });
    const publishable = /publishable key\s+(pk_live_[\w-]+)/.exec(stdout)?.[1];
    const secret = /secret key\s+(sk_live_[\w-]+)/.exec(stdout)?.[1];
    const projectId = /project\s+([0-9a-f]{24})/.exec(stdout)?.[1];
    expect(publishable, stdout).to.be.a('string');
    expect(secret, stdout).to.be.a('string');
    expect(projectId, stdout).to.be.a('string');
    const curl = stdout.split('\n').find((line) => line.startsWith('curl '));
    expect(curl, stdout).to.include(apps.public.url).and.include(publishable!);

    const { stdout: answer } = await run('bash', ['-c', curl!]);
    const body = JSON.parse(answer);
    expect(body.success).to.equal(true);
    expect(body.data.map((doc: { title: string }) => doc.title)).to.deep.equal([
      'Read the README',
      'Call the API with the publishable key',
      'Sign an end user up',
    ]);
    expect(body.data[1].done).to.equal(false);

    // The printed secret key works too, and both keys belong to the printed project.
    const schema = await apps.public.client.with({ 'x-api-key': secret! }).get('/api/schemas/todos');
    expect(schema.status).to.equal(200);
    expect(schema.body.data.collection.name).to.equal('todos');
  });

  it('says how to start the service when it cannot reach it', async () => {
    const failure = await run('npm', ['run', '-s', 'demo'], {
      cwd: repoPath(),
      env: { ...process.env, PUBLIC_URL: 'http://127.0.0.1:9', DASHBOARD_URL: 'http://127.0.0.1:9' },
    }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.code).to.equal(1);
    expect(failure?.stderr).to.include('cannot reach http://127.0.0.1:9').and.include('npm start');
  });
});
