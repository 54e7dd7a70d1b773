// Scheduled functions run by the worker: due by their UTC cron expression, once per period across
// two workers (claimed in job_runs), never overlapping their previous run; on an HTTP runtime
// verified with `standardwebhooks`, each run in the invocation log with trigger `schedule`.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';
import { functionScheduleJob } from '../../src/jobs/function-schedule.js';

describe('functions: scheduled functions in the worker', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let hooks: HookReceiver;
  const workerA = () => functionScheduleJob(apps.public.deps, apps.public.services, 'worker-a');
  const workerB = () => functionScheduleJob(apps.dashboard.deps, apps.dashboard.services, 'worker-b');

  async function scheduled(name: string, cron: string) {
    const res = await apps.public.client.with({ 'x-api-key': fx.secretKey }).post('/api/functions', {
      name,
      trigger: { type: 'schedule', cron },
      runtime: { type: 'http', url: hooks.url(`/${name}`) },
    });
    expect(res.status, res.text).to.equal(201);
    hooks.secret(`/${name}`, res.body.data.signingSecret);
    return res.body.data.function.id as string;
  }

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_schedule', { ALLOW_PRIVATE_HOSTS: 'true' });
    hooks = await startHookReceiver();
    fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {
      functionsPerProject: 50,
      functionCronMinSeconds: 60,
    });
  });
  after(async () => {
    await apps?.close();
    await hooks?.close();
  });

  it('runs a due function once per minute across two workers, with a stable event id', async () => {
    const id = await scheduled('hourly', '0 * * * *');
    const a = workerA();
    const b = workerB();
    const notDue = await a.tick(new Date('2026-11-28T10:05:10Z'));
    expect(notDue.started).to.deep.equal([]);
    const at = new Date('2026-11-28T11:00:20Z');
    const [first, second] = await Promise.all([a.tick(at), b.tick(at)]);
    expect([...first.started, ...second.started]).to.deep.equal([id]);
    await Promise.all([first.done, second.done]);
    const calls = hooks.on('/hourly');
    expect(calls).to.have.length(1);
    expect(calls[0]!.verified, calls[0]!.verifyError).to.equal(true);
    expect(calls[0]!.event).to.deep.include({
      id: `sched_${id}_2026-11-28T11:00`,
      trigger: 'schedule',
      projectId: fx.project.id,
      scheduledAt: '2026-11-28T11:00:00.000Z',
    });
    // The same minute again (a late tick) runs nothing; the next hour runs again.
    expect((await a.tick(new Date('2026-11-28T11:00:50Z'))).started).to.deep.equal([]);
    const next = await b.tick(new Date('2026-11-28T12:00:01Z'));
    await next.done;
    expect(hooks.on('/hourly')).to.have.length(2);
    // Each worker writes its log in batches (the reader flushes only its own).
    await apps.public.services.functions.invoker.flushLog();
    const log = await apps.dashboard.services.functions.runs.invocations(fx.project, id, 1, 10);
    expect(log.invocations.map((e) => [e.trigger, e.status])).to.deep.equal([
      ['schedule', 'ok'],
      ['schedule', 'ok'],
    ]);
  });

  it('never overlaps the previous run: a minute whose run would overlap is skipped', async () => {
    const id = await scheduled('everyMinute', '* * * * *');
    hooks.answer('/everyMinute', { delayMs: 1200 });
    const a = workerA();
    const first = await a.tick(new Date('2026-11-28T13:00:00Z'));
    expect(first.started).to.include(id);
    const overlapping = await workerB().tick(new Date('2026-11-28T13:01:00Z'));
    expect(overlapping.started).not.to.include(id);
    await first.done;
    const after = await a.tick(new Date('2026-11-28T13:02:00Z'));
    expect(after.started).to.include(id);
    await after.done;
    expect(hooks.on('/everyMinute')).to.have.length(2);
    // A disabled function is not run.
    await apps.public.client
      .with({ 'x-api-key': fx.secretKey })
      .patch('/api/functions/everyMinute', { enabled: false });
    expect((await a.tick(new Date('2026-11-28T13:03:00Z'))).started).not.to.include(id);
  });
});
