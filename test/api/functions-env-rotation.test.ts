// A function's secrets changed while an interpreter of it is kept warm (issue 48, item 6), over
// HTTP: the next call runs with the new env at once, in a fresh interpreter (module state that
// copied the old value, or kept the old ctx, is gone), and a value removed or replaced in the
// env's last change stays redacted from the invocation log, wherever the code got it from.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

const OLD = 'old-secret-value-0001';
const NEW = 'new-secret-value-0002';

/** Keeps the first value it saw, and the first ctx, in module state, as a careless module would. */
const keeper = `let kept; let keptCtx; let calls = 0;
export default async (event, ctx) => {
  calls += 1;
  kept ??= ctx.env.TOKEN;
  keptCtx ??= ctx;
  console.log('call', event.body.n, 'kept', kept, 'now', ctx.env.TOKEN, 'echo', event.body.echo ?? '');
  return { calls, kept: kept ?? null, now: ctx.env.TOKEN ?? null, viaKeptCtx: keptCtx.env.TOKEN ?? null };
}`;

describe('functions: a rotated or removed secret', function () {
  this.timeout(90_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let secret: ApiClient;

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_env_rotation');
    fx = await createProjectFixture(apps.dashboard.services);
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
  });
  after(() => apps?.close());

  let n = 0;
  /** One call; its log line starts with `call <n>`. */
  async function call(echo = '') {
    n += 1;
    const res = await secret.post('/api/functions/keeper', { echo, n });
    expect(res.status, res.text).to.equal(200);
    return res.body.data as {
      calls: number;
      kept: string | null;
      now: string | null;
      viaKeptCtx: string | null;
    };
  }
  /** The log of the call whose echo was `marker` (the public role writes its entries in batches). */
  async function logOf(id: string, marker: string): Promise<string> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await dash.get(`/api/projects/${fx.project.id}/functions/${id}/invocations`);
      expect(res.status, res.text).to.equal(200);
      const logs = (res.body.data.invocations as { logs: { message: string }[] }[]).map((i) =>
        i.logs.map((l) => l.message).join('\n'),
      );
      const found = logs.find((text) => text.includes(`call ${marker} `));
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no invocation logged for call ${marker}: ${logs.join(' | ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('runs with the new env at once after a rotation and a removal, and keeps the old value redacted', async () => {
    const made = await dash.post(`/api/projects/${fx.project.id}/functions`, {
      name: 'keeper',
      trigger: { type: 'callable', access: 'secret' },
      runtime: { type: 'javascript', code: keeper },
      env: { TOKEN: OLD },
    });
    expect(made.status, made.text).to.equal(201);
    const id = made.body.data.function.id as string;
    const path = `/api/projects/${fx.project.id}/functions/${id}`;

    // Warm: the second call meets the first one's module state (one runner serves both or not;
    // the call count says which, and at least one of a few calls must be warm).
    const first = await call();
    expect(first).to.include({ kept: OLD, now: OLD });
    let warm = false;
    for (let i = 0; i < 5 && !warm; i++) warm = (await call()).calls > 1;
    expect(warm, 'an interpreter was kept between calls').to.equal(true);
    expect(await logOf(id, String(n)))
      .to.include('[redacted]')
      .and.not.include(OLD);

    const rotated = await dash.patch(path, { env: { TOKEN: NEW } });
    expect(rotated.status, rotated.text).to.equal(200);
    for (let i = 0; i < 3; i++) {
      const after = await call(`the caller sent ${OLD}`);
      // A fresh interpreter each time the env changed: nothing of the old one is left.
      expect(after).to.deep.include({ kept: NEW, now: NEW, viaKeptCtx: NEW });
      const log = await logOf(id, String(n));
      expect(log).to.not.include(OLD).and.not.include(NEW);
      expect(log).to.include(`echo the caller sent [redacted]`);
    }

    const removed = await dash.patch(path, { env: { TOKEN: null } });
    expect(removed.status, removed.text).to.equal(200);
    const gone = await call(`still ${NEW}`);
    expect(gone).to.deep.include({ kept: null, now: null, viaKeptCtx: null });
    expect(await logOf(id, String(n)))
      .to.include('echo still [redacted]')
      .and.not.include(NEW);
  });
});
