// ctx.db of hosted code on the real stack: the hosted runtime (runner processes) calls back into
// the data service bound to one project and one caller. Project A's code cannot reach project B's
// collections, reads and writes under RLS as its caller, gets the secret key's rights only when
// privileged, and is stopped by the depth and write limits. The trigger path is not involved.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  contextFor,
  createCollectionFixture,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { hostedRuntime } from '../../src/services/functions/hosted-runtime.js';
import { hostedWiring, hostFor, MAX_FUNCTION_DEPTH } from '../../src/services/functions/host.js';
import { hostResolver } from '../../src/lib/restricted-hosts.js';
import type { HostedRuntime, InvocationLimits } from '../../src/services/functions/runtime-types.js';
import type { RequestContext } from '../../src/services/context.js';

const LIMITS: InvocationLimits = {
  deadlineMs: 5000,
  memoryBytes: 32 * 1024 * 1024,
  maxFetches: 2,
  maxDbCalls: 20,
  maxResultBytes: 256 * 1024,
  maxLogBytes: 4096,
};

describe('functions isolation: ctx.db', function () {
  this.timeout(30_000);
  let app: TestApp;
  let runtime: HostedRuntime;
  let a: ProjectFixture;
  let b: ProjectFixture;
  let endUser: RequestContext;

  before(async () => {
    app = await startTestApp('public', 'functions_isolation_host');
    runtime = hostedRuntime({ ...app.deps.config.sandbox, runners: 2 });
    a = await createProjectFixture(app.services, 'A');
    b = await createProjectFixture(app.services, 'B');
    const rls = { enabled: true, mode: 'private' as const, ownerField: 'userId' };
    await createCollectionFixture(app.services, a.project.id, { name: 'notes', rls });
    await createCollectionFixture(app.services, b.project.id, { name: 'secrets' });
    const secretKeyOf = (fx: ProjectFixture) => contextFor({ project: fx.project, keyKind: 'secret' });
    for (const userId of ['u1', 'u2']) {
      await app.services.data.create(secretKeyOf(a), 'notes', { title: `note of ${userId}`, userId });
    }
    await app.services.data.create(secretKeyOf(b), 'secrets', { title: 'B only' });
    endUser = contextFor({
      project: a.project,
      keyKind: 'publishable',
      endUser: { id: 'u1', projectId: a.project.id },
    });
  });
  after(async () => {
    await runtime.close();
    await app.deps.db
      .project(a.project.id)
      .dropDatabase()
      .catch(() => undefined);
    await app.deps.db
      .project(b.project.id)
      .dropDatabase()
      .catch(() => undefined);
    await app.close();
  });

  function invoke(
    code: string,
    options: { caller?: RequestContext; privileged?: boolean; depth?: number; maxWrites?: number } = {},
  ) {
    const host = hostFor({
      data: app.services.data,
      caller: options.caller ?? endUser,
      privileged: options.privileged ?? false,
      depth: options.depth ?? 1,
      maxWrites: options.maxWrites ?? 5,
      fetch: { allowHttp: false, allowPrivate: false, timeoutMs: 1000, resolver: hostResolver() },
    });
    return runtime.invoke({
      projectId: a.project.id,
      functionId: 'f1',
      version: 1,
      codeHash: 'test',
      code,
      trigger: 'callable',
      event: {},
      env: {},
      limits: LIMITS,
      host,
    });
  }

  it("reads as its caller: RLS shows the end user's own documents only", async () => {
    const out = await invoke(
      "export default async (e, ctx) => (await ctx.db.list('notes')).map((d) => d.title)",
    );
    expect(out.status, JSON.stringify(out.error)).to.equal('ok');
    expect(out.value).to.deep.equal(['note of u1']);
  });

  it('writes as its caller: the new document belongs to the end user', async () => {
    const out = await invoke(
      "export default async (e, ctx) => (await ctx.db.create('notes', { title: 'new' })).userId",
    );
    expect(out.value).to.equal('u1');
  });

  it("a privileged function has the secret key's rights", async () => {
    const out = await invoke("export default async (e, ctx) => (await ctx.db.count('notes'))", {
      privileged: true,
    });
    expect(out.value).to.equal(3);
  });

  it("cannot reach another project's collection, nor the users collection", async () => {
    const out = await invoke(
      `export default async (e, ctx) => {
      const tries = [() => ctx.db.list('secrets'), () => ctx.db.list('secrets', { projectId: '${b.project.id}' }),
        () => ctx.db.get('../p_${b.project.id}/secrets', '000000000000000000000000'), () => ctx.db.list('users'),
        () => ctx.db.aggregate('notes', [{ $lookup: { from: 'secrets', localField: 'x', foreignField: 'y', as: 'z' } }])];
      const seen = [];
      for (const t of tries) seen.push(await t().then((v) => 'ANSWERED ' + JSON.stringify(v), (err) => err.status + ' ' + err.message));
      return seen;
    }`,
      { privileged: true },
    );
    expect(out.status, JSON.stringify(out.error)).to.equal('ok');
    const seen = out.value as string[];
    for (const line of seen) expect(line).to.not.match(/ANSWERED|B only/);
    expect(seen[0]).to.match(/^404 /);
    expect(seen[3]).to.match(/^403 /);
  });

  it(`refuses writes of a function nested ${MAX_FUNCTION_DEPTH} deep, and writes past the per-call limit`, async () => {
    const deep = await invoke(
      "export default async (e, ctx) => ctx.db.create('notes', { title: 'loop' }).catch((err) => [err.code, err.message])",
      { depth: MAX_FUNCTION_DEPTH },
    );
    expect(deep.value).to.deep.equal([
      'FUNCTION_DEPTH',
      `ctx.db: a function run by another function's write cannot write (at most ${MAX_FUNCTION_DEPTH} functions deep)`,
    ]);
    const many = await invoke(
      "export default async (e, ctx) => { const r = []; for (let i = 0; i < 4; i++) r.push(await ctx.db.create('notes', { title: 'n' + i }).then(() => 'ok', (err) => err.message)); return r }",
      { maxWrites: 3 },
    );
    expect(many.value).to.deep.equal(['ok', 'ok', 'ok', 'ctx.db: at most 3 writes per invocation']);
  });

  it('refuses an action or an argument the data API would not take', async () => {
    const out = await invoke(`export default async (e, ctx) => {
      const r = [];
      for (const t of [() => ctx.db.get('notes', 42), () => ctx.db.list('notes', { title: { $ne: 1 } }), () => ctx.db.aggregate('notes', 'x')])
        r.push(await t().then(() => 'ANSWERED', (err) => err.message));
      return r;
    }`);
    expect(out.value).to.deep.equal([
      'ctx.db: the id must be a string',
      'ctx.db: the query value of title must be a string',
      'ctx.db: the pipeline must be an array of stages',
    ]);
  });

  it("the trigger service's seam binds the function's project, the caller and the depth", async () => {
    const wiring = hostedWiring({
      runtime,
      data: app.services.data,
      projectById: (id) => app.services.repos.projects.findById(id),
      fetch: { allowHttp: false, allowPrivate: false, timeoutMs: 1000, resolver: hostResolver() },
      maxWrites: 5,
      log: endUser.log,
    });
    const run = (caller: Parameters<typeof wiring.hostFor>[1], privileged = false) =>
      runtime.invoke({
        projectId: a.project.id,
        functionId: 'f2',
        version: 1,
        codeHash: 'test',
        code: "export default async (e, ctx) => ctx.db.create('notes', { title: 'seam' }).then((d) => d.userId ?? 'none', (err) => err.status + ' ' + err.code)",
        trigger: 'afterCreate',
        event: {},
        env: {},
        limits: LIMITS,
        host: wiring.hostFor(
          { projectId: a.project.id, runtime: { type: 'javascript', privileged } },
          caller,
          LIMITS,
        ),
      });
    // A client's request (depth 0) runs the function at depth 1: it writes as the end user.
    expect((await run({ keyKind: 'publishable', userId: 'u2' })).value).to.equal('u2');
    // A function's write (depth 1) runs it at depth 2: no more writes, so a loop ends there.
    expect((await run({ keyKind: 'publishable', userId: 'u2', depth: 1 })).value).to.equal(
      '400 FUNCTION_DEPTH',
    );
    // No caller (a schedule): the publishable key's rights, unless privileged.
    expect((await run({ keyKind: null, userId: null })).value).to.equal('401 MISSING_TOKEN');
    expect((await run({ keyKind: null, userId: null }, true)).value).to.equal('none');
  });
});
