// A runner pool for the sandbox's unit suites: real runner processes with small, fixed limits;
// each suite states only what it changes.
import { SandboxPool } from '../../src/sandbox/pool.js';
import type { PoolOptions } from '../../src/sandbox/types.js';

export function testPool(options: Partial<PoolOptions> = {}): SandboxPool {
  return new SandboxPool({
    runners: 2,
    projectRunning: 2,
    projectWaiting: 2,
    wasmMemoryBytes: 256 * 1024 * 1024,
    stackBytes: 256 * 1024,
    rssLimitBytes: 384 * 1024 * 1024,
    graceMs: 100,
    ...options,
  });
}
