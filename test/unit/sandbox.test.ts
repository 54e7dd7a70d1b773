// The hosted runtime's pool with real runner processes: hostile code is run, and each abuse ends
// as a status of its own call while the pool keeps answering other calls. No service is involved:
// ctx.db and ctx.fetch are small fakes that record what crossed into the parent.
import { expect } from 'chai';
import { readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import type { SandboxPool } from '../../src/sandbox/pool.js';
import { testPool } from '../helpers/sandbox-pool.js';
import { FunctionConcurrencyError } from '../../src/sandbox/queue.js';
import type { SandboxHost, SandboxJob, SandboxLimits } from '../../src/sandbox/types.js';

const LIMITS: SandboxLimits = {
  deadlineMs: 1000,
  memoryBytes: 32 * 1024 * 1024,
  maxFetches: 3,
  maxDbCalls: 5,
  maxResultBytes: 256 * 1024,
  maxLogBytes: 4096,
};

const echoHost: SandboxHost = {
  db: async (op) => ({ echoed: op }),
  fetch: async (req) => ({ status: 200, headers: {}, body: JSON.stringify(req) }),
};

export function job(code: string, extra: Partial<SandboxJob> = {}): SandboxJob {
  return {
    projectId: 'A',
    code,
    event: { doc: { title: 'a' } },
    env: {},
    limits: LIMITS,
    host: echoHost,
    ...extra,
  };
}

describe('sandbox pool', function () {
  this.timeout(30_000);
  let pool: SandboxPool;

  before(async () => {
    pool = testPool({ runners: 3, wasmMemoryBytes: 128 * 1024 * 1024, rssLimitBytes: 512 * 1024 * 1024 });
    await pool.warm();
  });
  after(() => pool.close());

  it('runs the default export with the event and returns its JSON value', async () => {
    const out = await pool.run(job('export default async (event, ctx) => ({ ...event.doc, n: 1 + 1 })'));
    expect(out.status).to.equal('ok');
    expect(out.value).to.deep.equal({ title: 'a', n: 2 });
  });

  it('answers ctx.db and ctx.fetch through the parent, and counts them per invocation', async () => {
    const pids = pool.runnerStates().map((r) => r.pid);
    const out = await pool.run(
      job(`export default async (e, ctx) => {
        const got = await ctx.db.get('posts', 'x1');
        const res = await ctx.fetch('https://example.com/a', { method: 'POST', body: 'hi' });
        const errors = [];
        for (let i = 0; i < 6; i++) await ctx.db.count('posts').catch((err) => errors.push(err.message));
        return { got, fetched: res.json(), ok: res.ok, errors };
      }`),
    );
    expect(out.status).to.equal('ok');
    const value = out.value as { got: unknown; fetched: unknown; ok: boolean; errors: string[] };
    expect(value.got).to.deep.equal({ echoed: { action: 'get', collection: 'posts', id: 'x1' } });
    expect(value.fetched).to.deep.include({ url: 'https://example.com/a', method: 'POST', body: 'hi' });
    expect(value.ok).to.equal(true);
    // One get plus six counts: the limit of 5 refuses the last two.
    expect(value.errors).to.deep.equal([
      'ctx.db: at most 5 calls per invocation',
      'ctx.db: at most 5 calls per invocation',
    ]);
    // Host answers and refusals leave the interpreter clean: the runner is kept, not replaced.
    expect(pool.runnerStates().map((r) => r.pid)).to.deep.equal(pids);
  });

  it('captures console output per invocation and redacts the env secrets from it', async () => {
    const out = await pool.run(
      job(
        `export default async (e, ctx) => { console.log('key', ctx.env.KEY); console.warn({ a: 1 }); return ctx.env.KEY.length }`,
        {
          env: { KEY: 'sk_secret_value' },
        },
      ),
    );
    expect(out.status).to.equal('ok');
    expect(out.value).to.equal(15);
    expect(out.logs.map((l) => [l.level, l.message])).to.deep.equal([
      ['log', 'key [redacted]'],
      ['warn', '{"a":1}'],
    ]);
  });

  it('gives each invocation a fresh interpreter: globals do not survive to the next call', async () => {
    await pool.run(
      job('globalThis.leak = "from A"; Object.prototype.polluted = 1; export default async () => 1'),
    );
    for (let i = 0; i < 4; i++) {
      const out = await pool.run(
        job('export default async () => [typeof globalThis.leak, ({}).polluted ?? null]', { projectId: 'B' }),
      );
      expect(out.value).to.deep.equal(['undefined', null]);
    }
  });

  it("accepts on the runners' socket only a runner's one-time token, which no argument shows", async () => {
    const { pid } = pool.runnerStates()[0]!;
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const socketPath = args.find((arg) => arg.endsWith('.sock'))!;
    expect(statSync(dirname(socketPath)).mode & 0o777).to.equal(0o700);
    // Nothing in the arguments is a token (32 hex characters).
    expect(args.filter((arg) => /^[0-9a-f]{32}$/.test(arg))).to.deep.equal([]);
    for (const hello of [
      { t: 'ready', token: '0'.repeat(32), pid: process.pid },
      { t: 'host', run: 1, call: 1, kind: 'db', arg: '{}' },
      'not json',
    ]) {
      const closed = await new Promise<boolean>((resolve) => {
        const socket = connect(socketPath, () =>
          socket.write(`${typeof hello === 'string' ? hello : JSON.stringify(hello)}\n`),
        );
        socket.on('close', () => resolve(true));
        socket.on('error', () => undefined);
        setTimeout(() => resolve(false), 2000);
      });
      expect(closed, JSON.stringify(hello)).to.equal(true);
    }
    const out = await pool.run(job('export default async () => 7'));
    expect(out.value).to.equal(7);
  });

  describe('an interpreter kept for its function version', () => {
    const counter = 'let n = 0; export default async () => ++n;';
    const keyed = (key: string, extra: Partial<SandboxJob> = {}) => job(counter, { key, ...extra });

    it('serves the next call of the same key, and never another function, version or project', async () => {
      const values = [];
      for (const extra of [
        {},
        {},
        {},
        { key: 'A/f2/1/h' }, // another function of the same project, the same code
        { key: 'A/f1/2/h2' }, // another version of the function
        { projectId: 'B', key: 'B/f1/1/h' }, // another project, the same code and names
        {},
        { key: undefined }, // a test run: the module alone
      ])
        values.push((await pool.run(keyed('A/f1/1/h', extra))).value);
      expect(values.slice(0, 3)).to.deep.equal([1, 2, 3]);
      expect(values.slice(3, 6)).to.deep.equal([1, 1, 1]);
      // With three runners and three other keys in between, A/f1/1's interpreter may have been
      // re-purposed (then it counts from 1 again); it is never another key's.
      expect(values[6]).to.be.oneOf([1, 4]);
      expect(values[7]).to.equal(1);
    });

    it('keeps it only after a clean call: a throw, a host call left running or other limits start afresh', async () => {
      const code = `let n = 0;
        export default async (e, ctx) => {
          n++;
          if (e.fail) throw new Error('no');
          if (e.leave) ctx.db.get('posts', 'x'); // not awaited: still in flight when the call ends
          return n;
        }`;
      const run = async (event: Record<string, unknown>, extra: Partial<SandboxJob> = {}) =>
        (await pool.run(job(code, { key: 'A/clean/1/h', event, ...extra }))).value ?? null;
      expect(await run({})).to.equal(1);
      expect(await run({})).to.equal(2);
      expect(await run({ fail: true })).to.equal(null);
      expect(await run({})).to.equal(1);
      expect(await run({ leave: true })).to.equal(2);
      expect(await run({})).to.equal(1);
      expect(await run({})).to.equal(2);
      expect(await run({}, { limits: { ...LIMITS, memoryBytes: 24 * 1024 * 1024 } })).to.equal(1);
      expect(await run({}, { limits: { ...LIMITS, memoryBytes: 24 * 1024 * 1024 } })).to.equal(2);
    });

    it('lets a ctx kept in module state act only for the call that uses it: its host, secrets and console', async () => {
      const code = `let saved;
        export default async (e, ctx) => {
          saved ??= ctx;
          console.log('call', e.n);
          return [await saved.db.get('posts', 'p'), saved.env.K];
        }`;
      const hostOf = (from: string): SandboxHost => ({ ...echoHost, db: async () => ({ from }) });
      const first = await pool.run(
        job(code, { key: 'A/ctx/1/h', event: { n: 1 }, env: { K: 'one' }, host: hostOf('first') }),
      );
      const second = await pool.run(
        job(code, { key: 'A/ctx/1/h', event: { n: 2 }, env: { K: 'two' }, host: hostOf('second') }),
      );
      expect(first.value).to.deep.equal([{ from: 'first' }, 'one']);
      expect(second.value).to.deep.equal([{ from: 'second' }, 'two']);
      expect(second.logs.map((l) => l.message)).to.deep.equal(['call 2']);
    });
  });

  it('reports a thrown error with the line of the source', async () => {
    const pids = pool.runnerStates().map((r) => r.pid);
    const out = await pool.run(
      job('export default async () => {\n  const a = 1;\n  throw new TypeError("bad " + a);\n}'),
    );
    expect(out.status).to.equal('error');
    expect(out.error!.message).to.equal('TypeError: bad 1');
    expect(out.error!.stack).to.match(/function\.js:3/);
    expect(pool.runnerStates().map((r) => r.pid)).to.deep.equal(pids);
  });

  it('builds ctx and console on first use: frozen, the same members on every read, console replaceable', async () => {
    const out = await pool.run(
      job(
        `console.info('at load');
        export default async (e, ctx) => {
          const shape = [Object.isFrozen(ctx), Object.keys(ctx), ctx.db === ctx.db, typeof ctx.db.get,
            ctx.env.KEY, Object.isFrozen(ctx.env), Object.isFrozen(console), typeof ctx.log];
          ctx.log('through ctx.log');
          let refused = false;
          try { ctx.db = null; } catch (err) { refused = err instanceof TypeError; }
          const before = console;
          globalThis.console = { log: () => {} };
          console.log('swallowed');
          before.warn('kept');
          return [...shape, refused];
        }`,
        { env: { KEY: 'v' } },
      ),
    );
    expect(out.status).to.equal('ok');
    expect(out.value).to.deep.equal([
      true,
      ['db', 'fetch', 'env', 'log'],
      true,
      'function',
      'v',
      true,
      true,
      'function',
      true,
    ]);
    expect(out.logs.map((l) => [l.level, l.message])).to.deep.equal([
      ['info', 'at load'],
      ['log', 'through ctx.log'],
      ['warn', 'kept'],
    ]);
  });

  it('reports a thrown null as memory: what QuickJS throws when it cannot even build its error', async () => {
    const out = await pool.run(job('export default async () => { throw null }'));
    expect(out.status).to.equal('memory');
    expect(out.error!.message).to.equal('The function ran out of memory');
    const thrown = await pool.run(job("export default async () => { throw 'a string' }"));
    expect([thrown.status, thrown.error!.message]).to.deep.equal(['error', 'Error: a string']);
  });

  it('refuses a module without a default function', async () => {
    const out = await pool.run(job('export const x = 1;'));
    expect(out.status).to.equal('error');
    expect(out.error!.message).to.match(/must export a default function/);
  });

  it("caps the calls of one project (running + waiting) and starts another project's call at once", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowHost: SandboxHost = {
      ...echoHost,
      fetch: async () => (await gate, { status: 200, headers: {}, body: '' }),
    };
    const slow = () =>
      pool.run(
        job("export default async (e, ctx) => (await ctx.fetch('https://example.com'), 'A done')", {
          host: slowHost,
        }),
      );
    const a = [slow(), slow(), slow(), slow()];
    // Two running and two waiting is project A's cap: the fifth is refused at once.
    let refused: unknown;
    await slow().catch((err) => (refused = err));
    expect(refused).to.be.instanceOf(FunctionConcurrencyError);
    expect((refused as FunctionConcurrencyError).code).to.equal('FUNCTION_CONCURRENCY');
    expect((refused as Error).message).to.equal(
      'Too many function calls of this project at once (at most 4 running or waiting)',
    );
    // Project B is not behind A's queue: the third runner takes its call.
    for (let i = 0; i < 3; i++) {
      const b = await pool.run(job('export default async () => Date.now()', { projectId: 'B' }));
      expect(b.status).to.equal('ok');
      expect(b.queuedMs).to.be.below(100);
    }
    release();
    const done = await Promise.all(a);
    expect(done.map((o) => o.value)).to.deep.equal(['A done', 'A done', 'A done', 'A done']);
    // Two of A's calls waited for a runner of A's share to come free.
    expect(done.filter((o) => o.queuedMs > 0).length).to.be.at.least(2);
  });

  it('runs its runners at the lowest CPU priority (niceness 19), with an empty environment', () => {
    for (const { pid } of pool.runnerStates()) {
      // /proc/<pid>/stat: the 19th field is the niceness (after the command name in parentheses).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      expect(Number(fields[16])).to.equal(19);
      // Nothing at all: it reaches the service over a socket, not a channel set up by Node.
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).to.equal('');
    }
  });
});
