// What a write pays for hooks when its collection has none (docs/functions.md, "Cost when no hook
// exists"): the before-hook lookup through the project cache, as the write path makes it, timed
// over many calls once the table is cached. Run: npx tsx scripts/bench/hook-lookup.ts
import { createCache } from '../../src/cache/index.js';
import { createLogger } from '../../src/lib/logger.js';
import { projectCache } from '../../src/services/project-cache.js';
import { syncHooks, type HookTable } from '../../src/services/functions/hooks.js';
import type { FunctionInvoker } from '../../src/services/functions/invoke.js';

const CALLS = 200_000;

async function main() {
  const cache = await createCache(undefined, 'bench');
  const cached = projectCache(cache);
  let loads = 0;
  const table = (projectId: string) =>
    cached.ofProject(projectId, 'functions', async (): Promise<HookTable> => {
      loads++;
      return {};
    });
  const hooks = syncHooks({
    table,
    invoker: {} as FunctionInvoker,
    limitsOf: async () => {
      throw new Error('not reached');
    },
    log: createLogger('silent'),
  });
  const projectId = '65f1c2a4b7e8d9001234567b';
  await hooks.find(projectId, 'beforeCreate', 'posts'); // the one load
  for (let round = 0; round < 3; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) await hooks.find(projectId, 'beforeCreate', 'posts');
    const ns = Number(process.hrtime.bigint() - started) / CALLS;
    console.log(
      `round ${round + 1}: ${ns.toFixed(0)} ns per lookup (${CALLS} lookups), table loads so far: ${loads}`,
    );
  }
  await cache.close();
}

await main();
