// `npx tsx scripts/bench/rate-limit-check.ts [--calls 200000] [--redis]`: the CPU cost of the
// public API's rate-limit gate per request (src/http/rate-limit.ts, src/services/rate-limits.ts),
// without HTTP: the gate around an already resolved key, for a secret-key and a publishable-key
// request from a few client addresses (IPv4, IPv4-mapped, IPv6). In memory by default; with
// --redis on REDIS_URL, where a busy key is served from its lease (src/cache/rate-lease.ts).
import { parseArgs } from 'node:util';
import type { Context } from 'koa';
import { createCache } from '../../src/cache/index.js';
import { rateLimitGates } from '../../src/http/rate-limit.js';
import { apiRateLimits } from '../../src/services/rate-limits.js';
import type { Principal } from '../../src/services/context.js';
import type { Project } from '../../src/services/types.js';
import { BUILTIN_PLAN_TABLE } from '../../src/lib/plan-table.js';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '200000' }, redis: { type: 'boolean', default: false } },
});
const CALLS = Number(values.calls);
const cache = await createCache(values.redis ? process.env.REDIS_URL : undefined, `bench_rl_${process.pid}`);
const limits = apiRateLimits(cache, 1e9, async () => 'pro', BUILTIN_PLAN_TABLE);
const gate = rateLimitGates(limits)([{ apiKey: [] }])!;
const project = {
  id: '65f000000000000000000001',
  ownerId: 'o',
  limits: { requestsPerMinute: 1e9 },
} as unknown as Project;

const ips = ['203.0.113.7', '::ffff:198.51.100.9', '2001:db8:1:2::1', '2001:db8:1:2::2'];
function fakeCtx(key: string, ip: string): Context {
  const headers = new Map<string, string>();
  return {
    ip,
    headerSent: false,
    get: (name: string) => (name === 'x-api-key' ? key : ''),
    res: { setHeader: (name: string, value: string) => headers.set(name, value) },
  } as unknown as Context;
}

async function measure(label: string, keyKind: 'secret' | 'publishable') {
  const key = keyKind === 'secret' ? 'sk_live_x' : 'pk_live_x';
  const principal = { project, keyKind } as unknown as Principal;
  const resolve = async () => principal;
  const ctxs = ips.map((ip) => fakeCtx(key, ip));
  for (let i = 0; i < 20000; i++) await gate(ctxs[i % ctxs.length]!, resolve);
  const started = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await gate(ctxs[i % ctxs.length]!, resolve);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(started);
  console.log(
    `${label.padEnd(12)} ${((wall * 1000) / CALLS).toFixed(2)} µs wall, ${((cpu.user + cpu.system) / CALLS).toFixed(2)} µs CPU per check`,
  );
}

await measure('secret', 'secret');
await measure('publishable', 'publishable');
await cache.close();
