// A cold start never eats a call's time budget, with real runner processes: a module that takes a
// while to evaluate still gets its whole deadline for the call itself; the first call of a pool
// whose runners are still starting waits for them without timing out; a version readied by
// prepare() (as saving one does) is served warm on its first call.
import { expect } from 'chai';
import type { SandboxPool } from '../../src/sandbox/pool.js';
import { testPool } from '../helpers/sandbox-pool.js';
import type { SandboxJob, SandboxLimits } from '../../src/sandbox/types.js';

const LIMITS: SandboxLimits = {
  deadlineMs: 1000,
  memoryBytes: 32 * 1024 * 1024,
  maxFetches: 3,
  maxDbCalls: 5,
  maxResultBytes: 256 * 1024,
  maxLogBytes: 4096,
};
const refuse = () => Promise.reject(new Error('no host here'));
const job = (code: string, extra: Partial<SandboxJob> = {}): SandboxJob => ({
  projectId: 'A',
  code,
  event: {},
  env: {},
  limits: LIMITS,
  host: { db: refuse, fetch: refuse },
  ...extra,
});

const DEADLINE_MS = 1000;
/** Spins for `ms` of wall time wherever it is put (module top level or the call). */
const spin = (ms: number) => `{ const end = Date.now() + ${ms}; while (Date.now() < end) {} }`;
const SLOW_MODULE = `${spin(700)}
export default async (event) => { ${spin(600)} return { called: true }; };`;
const limits = (deadlineMs: number) => ({ ...LIMITS, deadlineMs });

describe('sandbox: a cold start is not the call’s time', function () {
  this.timeout(60_000);
  let pool: SandboxPool;
  afterEach(() => pool?.close());

  it('gives a module that takes 700 ms to evaluate its whole 1 s deadline for a 600 ms call', async () => {
    pool = testPool();
    await pool.warm();
    for (const extra of [{}, { key: 'p/f/1/slow' }]) {
      const out = await pool.run(job(SLOW_MODULE, { limits: limits(DEADLINE_MS), ...extra }));
      expect(out.status, JSON.stringify(out.error)).to.equal('ok');
      expect(out.value).to.deep.equal({ called: true });
      // Evaluation and call together ran past the deadline: only the call counts against it.
      expect(out.durationMs).to.be.above(DEADLINE_MS);
    }
  });

  it('still bounds a module that never finishes evaluating, and a call that never ends', async () => {
    pool = testPool();
    await pool.warm();
    const stuckModule = await pool.run(
      job(`${spin(1e9)}\nexport default async () => 1;`, { limits: limits(500) }),
    );
    expect(stuckModule.status).to.equal('timeout');
    const stuckCall = await pool.run(
      job(`export default async () => { ${spin(1e9)} };`, { limits: limits(500) }),
    );
    expect(stuckCall.status).to.equal('timeout');
  });

  it("waits for a starting pool's runners without counting it against the first call", async () => {
    pool = testPool();
    const started = Date.now();
    const out = await pool.run(job('export default async () => "first"', { limits: limits(50) }));
    expect(out.status, JSON.stringify(out.error)).to.equal('ok');
    expect(out.value).to.equal('first');
    // The runners took longer to start than the call's 50 ms deadline.
    expect(Date.now() - started).to.be.above(50);
  });

  it('serves the first call of a prepared version warm', async () => {
    pool = testPool();
    const version = job('let calls = 0;\nexport default async () => ++calls;', { key: 'p/f/2/abc' });
    pool.prepare(version);
    const deadline = Date.now() + 30_000;
    while (pool.servedCounts().prepared < 1 || pool.runnerStates().some((r) => r.busy)) {
      if (Date.now() > deadline) throw new Error('the version was never prepared');
      await new Promise((r) => setTimeout(r, 20));
    }
    // Prepared once only: a second prepare finds the instance.
    pool.prepare(version);
    expect(pool.servedCounts()).to.deep.equal({ warm: 0, cold: 0, prepared: 1 });
    const out = await pool.run(version);
    expect(out.value, 'the module was evaluated, never called').to.equal(1);
    expect(pool.servedCounts()).to.deep.equal({ warm: 1, cold: 0, prepared: 1 });
  });
});
