// The command-line tool as a CI job meets it: the built executable run as a subprocess against the
// real stack, with a personal access token, in a folder of its own.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { repoPath } from '../../src/lib/paths.js';
import { sha256 } from '../../src/lib/secrets.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { functionInvocationsRepo } from '../../src/db/function-invocations.js';
import addFormats from 'ajv-formats';
import { buildCli, cliMain, cliPackage, runCli } from '../helpers/cli.js';

const run = promisify(execFile);
const CODE_V1 = 'export default async (event) => event.document;\n';
const CODE_V2 =
  'export default async (event) => ({ ...event.document, title: event.document.title.trim() });\n';

describe('mongobaas CLI', function () {
  this.timeout(120_000);
  let app: TestApp;
  let owner: ProjectFixture;
  let staging: string;
  let token: string;
  let dir: string;

  const cli = (args: string[], env: Record<string, string> = {}) => runCli(dir, args, env);
  const session = () => app.client.with({ cookie: owner.cookie });
  const file = () => path.join(dir, 'mongobaas.config.json');
  const readConfig = async () => JSON.parse(await readFile(file(), 'utf8'));

  before(async () => {
    await buildCli();
    app = await startTestApp('dashboard', 'cli');
    // The installation's first account is its operator (on a plan of its own): not the one tested.
    await createProjectFixture(app.services, 'Operator');
    owner = await createProjectFixture(app.services, 'Production');
    await app.services.repos.developers.setPlan(owner.developer.id, 'pro');
    staging = (await session().post('/api/projects', { name: 'Staging' })).body.data.project.id;
    const base = `/api/projects/${owner.project.id}`;
    const made = [
      await session().post(`${base}/collections`, {
        name: 'authors',
        mode: 'schema',
        fields: [{ name: 'name', type: 'String', required: true }],
      }),
      await session().post(`${base}/collections`, {
        name: 'posts',
        mode: 'schema',
        fields: [
          { name: 'title', type: 'String', required: true },
          { name: 'author', type: 'Ref', ref: 'authors' },
          { name: 'ownerId', type: 'String' },
          { name: 'views', type: 'Number', default: 0 },
        ],
        rls: { enabled: true, mode: 'public-read', ownerField: 'ownerId' },
        indexes: [{ name: 'by_views', keys: [{ field: 'views', direction: -1 }] }],
      }),
      await session().post(`${base}/webhooks`, {
        url: 'https://93.184.215.14/in',
        events: ['document.created', 'document.deleted'],
        collections: ['posts'],
      }),
      await session().post(`${base}/functions`, {
        name: 'checkPost',
        trigger: { type: 'beforeCreate', collection: 'posts' },
        runtime: { type: 'javascript', code: CODE_V1 },
      }),
      await session().post(`${base}/mail/templates`, {
        name: 'welcome',
        subject: 'Hi {{name}}',
        text: 'Hello!',
      }),
    ];
    for (const res of made) expect(res.status, res.text).to.be.oneOf([201]);
    token = (
      await session().post('/api/user/me/tokens', {
        password: owner.password,
        name: 'ci',
        scope: 'write',
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).body.data.token;
    dir = await mkdtemp(path.join(tmpdir(), 'mongobaas-cli-'));
  });
  after(async () => {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('logs in with a token, stores it 0600 and says who it is', async () => {
    const login = await cli(['login', '--url', app.url, '--token', token]);
    expect(login.code, login.stderr).to.equal(0);
    expect(login.stdout).to.include(`Logged in to ${app.url} as ${owner.developer.email}`);
    const stored = path.join(dir, 'config', 'mongobaas', 'credentials.json');
    expect((await stat(stored)).mode & 0o777).to.equal(0o600);
    const whoami = await cli(['whoami', '--json']);
    expect(JSON.parse(whoami.stdout)).to.include({ email: owner.developer.email, plan: 'pro' });
    const projects = JSON.parse((await cli(['projects', 'list', '--json'])).stdout);
    expect(projects.map((p: { name: string }) => p.name)).to.have.members(['Production', 'Staging']);
  });

  it('links the folder, pulls a stable file, and pulls the same bytes again', async () => {
    const link = await cli(['link', owner.project.id]);
    expect(link.code, link.stderr).to.equal(0);
    expect(JSON.parse(await readFile(path.join(dir, 'mongobaas.json'), 'utf8'))).to.deep.equal({
      url: app.url,
      projectId: owner.project.id,
      definition: 'mongobaas.config.json',
    });
    const pull = await cli(['pull']);
    expect(pull.code, pull.stderr).to.equal(0);
    expect(pull.stdout).to.include('2 collections, 1 webhooks, 1 mail templates, 1 functions');
    expect(await readFile(path.join(dir, 'functions', 'checkPost.js'), 'utf8')).to.equal(CODE_V1);
    const text = await readFile(file(), 'utf8');
    const config = JSON.parse(text);
    expect(config.$schema).to.equal(`${app.url}/clients/project-config.schema.json`);
    expect(Object.keys(config.collections)).to.deep.equal(['authors', 'posts']);
    expect(config.collections.posts.rls).to.deep.equal({
      enabled: true,
      mode: 'public-read',
      ownerField: 'ownerId',
    });
    expect(config.collections.posts.indexes).to.deep.equal([
      { name: 'by_views', keys: [{ field: 'views', direction: -1 }], unique: false },
    ]);
    expect(config.webhooks[0]).to.deep.equal({
      url: 'https://93.184.215.14/in',
      events: ['document.created', 'document.deleted'],
      collections: ['posts'],
      description: null,
      enabled: true,
    });
    expect(text).to.not.match(/whsec_/);
    expect(config.mailTemplates).to.deep.equal({
      welcome: { subject: 'Hi {{name}}', text: 'Hello!', html: null },
    });
    await cli(['pull']);
    expect(await readFile(file(), 'utf8')).to.equal(text);
    // The published JSON Schema accepts what pull writes (editors check the file with it).
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(
      JSON.parse(await readFile(repoPath('cli/schema/project-config.schema.json'), 'utf8')),
    );
    expect(config.functions).to.deep.equal({
      checkPost: {
        trigger: { type: 'beforeCreate', collection: 'posts' },
        runtime: { type: 'javascript', file: 'functions/checkPost.js' },
        failurePolicy: 'closed',
        enabled: true,
        env: [],
      },
    });
    expect(validate(config), JSON.stringify(validate.errors)).to.equal(true);
    expect(validate({ ...config, colections: {} })).to.equal(false);
    expect((await cli(['diff'])).stdout).to.include('No changes: the project matches the file');
  });

  it('diffs a changed file field by field, pushes it, and a second push changes nothing', async () => {
    const config = await readConfig();
    config.collections.posts.fields.push({ name: 'summary', type: 'String' });
    config.collections.posts.fields[3].default = 1;
    config.collections.tags = { mode: 'flexible', fields: [{ name: 'label', type: 'String' }] };
    config.webhooks[0].events = ['document.created'];
    config.settings.allowedOrigins = ['https://shop.example'];
    await writeFile(file(), JSON.stringify(config, null, 2));
    await writeFile(path.join(dir, 'functions', 'checkPost.js'), CODE_V2);
    const diff = await cli(['diff']);
    expect(diff.code, diff.stderr).to.equal(0);
    for (const line of [
      'update project settings',
      '~ allowedOrigins [] -> ["https://shop.example"]',
      'create collection tags (flexible, 1 fields)',
      'update collection posts',
      '+ field summary (String)',
      '~ field views: default 0 -> 1',
      'update webhook https://93.184.215.14/in',
      '~ events ["document.created","document.deleted"] -> ["document.created"]',
      'update function checkPost',
      '~ code changed',
      '5 step(s), 0 destructive, 1 widening access',
      'widens access: origin:https://shop.example',
    ])
      expect(diff.stdout).to.include(line);
    expect((await cli(['diff', '--exit-code'])).code).to.equal(3);
    const push = await cli(['push', '--allow-widening', 'origin:https://shop.example']);
    expect(push.code, push.stderr).to.equal(0);
    expect(push.stdout).to.include('Applied 5 step(s)');
    const again = await cli(['push']);
    expect(again.stdout).to.include('No changes: the project matches the file');
    expect((await cli(['diff', '--exit-code'])).code).to.equal(0);
    await cli(['pull']);
    const pulledText = await readFile(file(), 'utf8');
    expect(JSON.parse(pulledText)).to.deep.equal({
      $schema: JSON.parse(pulledText).$schema,
      ...config,
      collections: {
        ...config.collections,
        tags: {
          ...config.collections.tags,
          rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
          indexes: [],
        },
      },
    });
    await cli(['pull']);
    expect(await readFile(file(), 'utf8')).to.equal(pulledText);
    const posts = await session().get(`/api/projects/${owner.project.id}/collections/posts`);
    expect(posts.body.data.collection.fields.map((f: { name: string }) => f.name)).to.include('summary');
  });

  it('refuses destructive steps unless --allow-destructive names them', async () => {
    const config = await readConfig();
    delete config.collections.tags;
    config.collections.posts.fields = config.collections.posts.fields.filter(
      (f: { name: string }) => f.name !== 'summary',
    );
    config.collections.posts.rls.mode = 'private';
    await writeFile(file(), JSON.stringify(config, null, 2));
    const diff = await cli(['diff']);
    expect(diff.stdout).to.include('destructive: drop-collection:tags');
    expect(diff.stdout).to.include('destructive: drop-field:posts.summary');
    expect(diff.stdout).to.include('destructive: rls:posts');
    const refused = await cli(['push']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(
      'Refused: destructive steps not allowed: drop-field:posts.summary, rls:posts, drop-collection:tags',
    );
    expect((await session().get(`/api/projects/${owner.project.id}/collections/tags`)).status).to.equal(200);
    const partly = await cli(['push', '--allow-destructive', 'drop-collection:tags']);
    expect(partly.code).to.equal(1);
    const pushed = await cli([
      'push',
      '--allow-destructive',
      'drop-field:posts.summary,rls:posts',
      '--allow-destructive',
      'drop-collection:tags',
    ]);
    expect(pushed.code, pushed.stderr).to.equal(0);
    expect((await session().get(`/api/projects/${owner.project.id}/collections/tags`)).status).to.equal(404);
  });

  it('stops at the first refusal with the server message', async () => {
    const config = await readConfig();
    config.collections.broken = { mode: 'schema', fields: [{ name: 'x', type: 'Ref', ref: 'nowhere' }] };
    await writeFile(file(), JSON.stringify(config, null, 2));
    const push = await cli(['push']);
    expect(push.code).to.equal(1);
    expect(push.stderr).to.match(
      /Stopped at "create collection broken \(schema, 1 fields\)" \(0 of 1 steps applied\): .*nowhere/,
    );
    delete config.collections.broken;
    await writeFile(file(), JSON.stringify(config, null, 2));
  });

  it('rebuilds the definition in an empty project: both pulls are the same', async () => {
    const push = await cli([
      'push',
      '--project',
      staging,
      '--allow-widening',
      'origin:https://shop.example,webhook:https://93.184.215.14/in',
    ]);
    expect(push.code, push.stderr).to.equal(0);
    await cli(['pull']);
    const production = await readFile(file(), 'utf8');
    const pulled = await cli(['pull', '--project', staging, '--file', 'staging.json']);
    expect(pulled.code, pulled.stderr).to.equal(0);
    expect(await readFile(path.join(dir, 'staging.json'), 'utf8')).to.equal(production);
  });

  it('generates types that type-check a program using them, and --check catches drift', async () => {
    const gen = await cli(['gen', 'types', '--out', 'types.ts']);
    expect(gen.code, gen.stderr).to.equal(0);
    await writeFile(
      path.join(dir, 'use.ts'),
      [
        "import type { components } from './types.js';",
        "type Post = components['schemas']['posts'];",
        "const ok: Pick<Post, 'title'> = { title: 'Hello' };",
        '// @ts-expect-error views is a number',
        "const bad: Pick<Post, 'views'> = { views: 'many' };",
        'export { ok, bad };',
        '',
      ].join('\n'),
    );
    const tsc = repoPath('node_modules/typescript/bin/tsc');
    await run(
      process.execPath,
      [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'use.ts'],
      { cwd: dir },
    );
    expect((await cli(['gen', 'types', '--out', 'types.ts', '--check'])).code).to.equal(0);
    await session().post(`/api/projects/${owner.project.id}/collections`, {
      name: 'comments',
      mode: 'schema',
      fields: [{ name: 'body', type: 'String' }],
    });
    const drift = await cli(['gen', 'types', '--out', 'types.ts', '--check']);
    expect(drift.code).to.equal(3);
    expect(drift.stdout).to.include('types.ts is stale');
  });

  it('packs as a package of its own whose bin runs without the service', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: cliPackage() });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).to.include.members(['dist/main.js', 'schema/project-config.schema.json', 'package.json']);
    expect(files.some((f) => f.startsWith('src/'))).to.equal(false);
    expect((await readFile(cliMain(), 'utf8')).startsWith('#!/usr/bin/env node')).to.equal(true);
    const version = await cli(['--version']);
    expect(version.stdout.trim()).to.equal(
      JSON.parse(await readFile(repoPath('cli/package.json'), 'utf8')).version,
    );
  });

  it('installs from a checkout as docs/cli.md says, in a clean folder with a fresh npm cache', async () => {
    // `npm run build:cli` then `npm pack ./cli` and `npm install -g` of the tarball; the build is
    // the suite's own package folder (the same files), the global prefix a folder of the test.
    const clean = await mkdtemp(path.join(tmpdir(), 'mongobaas-cli-install-'));
    try {
      const npm = (args: string[]) =>
        run('npm', [...args, '--loglevel=error'], {
          cwd: clean,
          env: {
            ...process.env,
            npm_config_cache: path.join(clean, 'cache'),
            npm_config_update_notifier: 'false',
          },
        });
      const packed = (await npm(['pack', cliPackage(), '--pack-destination', clean])).stdout
        .trim()
        .split('\n')
        .pop()!;
      await npm([
        'install',
        '-g',
        '--prefix',
        path.join(clean, 'global'),
        '--no-audit',
        '--no-fund',
        `./${packed}`,
      ]);
      const { stdout } = await run(path.join(clean, 'global', 'bin', 'mongobaas'), ['--version'], {
        cwd: clean,
      });
      expect(stdout.trim()).to.equal(
        JSON.parse(await readFile(repoPath('cli/package.json'), 'utf8')).version,
      );
      // Its dependencies came with it: the definition check (ajv) runs from the install.
      await writeFile(path.join(clean, 'mongobaas.config.json'), '{"colections": {}}');
      const diff = await run(path.join(clean, 'global', 'bin', 'mongobaas'), ['diff'], { cwd: clean }).catch(
        (err: { code: number; stderr: string }) => err,
      );
      expect((diff as { stderr: string }).stderr).to.include(
        'mongobaas.config.json:1:2: colections: unknown property',
      );
    } finally {
      await rm(clean, { recursive: true, force: true });
    }
  });

  it("prints a function's invocation log, newest last, with its error and log lines", async () => {
    const listed = await session().get(`/api/projects/${owner.project.id}/functions`);
    const fn = listed.body.data.functions.find((f: { name: string }) => f.name === 'checkPost');
    const log = functionInvocationsRepo(app.deps.db.platform);
    const entry = (minutes: number, status: 'ok' | 'error') => ({
      projectId: owner.project.id,
      functionId: fn.id,
      trigger: 'beforeCreate' as const,
      version: 2,
      status,
      durationMs: 12,
      error:
        status === 'error'
          ? { message: 'TypeError: x is undefined', stack: 'at checkPost (functions/checkPost.js:1:30)' }
          : null,
      logs: [{ level: 'log', message: `run ${minutes}`, atMs: 1 }],
      at: new Date(Date.now() - minutes * 60_000),
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    await log.add(entry(2, 'ok'));
    await log.add(entry(1, 'error'));
    const logs = await cli(['functions', 'logs', 'checkPost']);
    expect(logs.code, logs.stderr).to.equal(0);
    const lines = logs.stdout.trim().split('\n');
    expect(lines[0]).to.match(/ ok {2}v2 {2}beforeCreate {2}12 ms$/);
    expect(lines[1]).to.equal('    [log] run 2');
    expect(lines[2]).to.match(/ error {2}v2 /);
    expect(lines[3]).to.equal('    at checkPost (functions/checkPost.js:1:30)');
    expect((await cli(['functions', 'logs', 'nope'])).stderr).to.include('No function nope in the project');
  });

  it('deploys one function from its code file, and drops one only when named', async () => {
    await writeFile(path.join(dir, 'functions', 'checkPost.js'), CODE_V1);
    const deploy = await cli(['functions', 'deploy', 'checkPost']);
    expect(deploy.code, deploy.stderr).to.equal(0);
    expect(deploy.stdout).to.include('done update function checkPost').and.include('Deployed 1 change(s)');
    const listed = await session().get(`/api/projects/${owner.project.id}/functions`);
    const fn = listed.body.data.functions.find((f: { name: string }) => f.name === 'checkPost');
    expect(fn.runtime.code).to.equal(CODE_V1);
    expect(fn.version).to.be.greaterThan(2);
    expect((await cli(['functions', 'deploy'])).stdout).to.include(
      'No changes: the functions match the file',
    );
    const config = await readConfig();
    delete config.functions.checkPost;
    await writeFile(file(), JSON.stringify(config, null, 2));
    const refused = await cli(['functions', 'deploy']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('destructive steps not allowed: drop-function:checkPost');
    const dropped = await cli(['functions', 'deploy', '--allow-destructive', 'drop-function:checkPost']);
    expect(dropped.code, dropped.stderr).to.equal(0);
    expect(
      (await session().get(`/api/projects/${owner.project.id}/functions`)).body.data.functions,
    ).to.deep.equal([]);
  });

  it('refuses an expired token with its message and exit code 4', async () => {
    const past = new Date(Date.now() - 86_400_000);
    await app.deps.db.platform
      .collection('accessTokens')
      .updateOne({ hash: sha256(token) }, { $set: { expiresAt: past } });
    const res = await cli(['whoami']);
    expect(res.code).to.equal(4);
    expect(res.stderr).to.include(`This access token expired on ${past.toISOString().slice(0, 10)}`);
  });
});
