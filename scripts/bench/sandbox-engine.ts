// What QuickJS (quickjs-emscripten-core + the release-sync WASM build) costs inside one runner
// process, measured before the hosted runtime was built on it: loading the WASM module, one
// invocation of a small async function under three ways of reusing the engine, a CPU-bound
// function against V8, and the resident memory of a runner next to a bare Node process.
//
//   npx tsx scripts/bench/sandbox-engine.ts [--n 2000]
//
// The pool's own figures (IPC round trip, requests per second) are in scripts/bench/sandbox.ts.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { QuickJSContext, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { loadQuickJS } from '../../src/sandbox/quickjs.js';

const CODE = 'export default async (event, ctx) => event;';
const FIB = 'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }';

/** Evaluates the module, calls its default export with an event and drains the jobs. */
function invoke(vm: QuickJSContext): unknown {
  const mod = vm.unwrapResult(vm.evalCode(CODE, 'function.js', { type: 'module' }));
  const state = vm.getPromiseState(mod);
  const exports = state.type === 'fulfilled' ? state.value : mod;
  const fn = vm.getProp(exports, 'default');
  const event = vm.unwrapResult(vm.evalCode('({ doc: { title: "a", n: 1 } })'));
  const promise = vm.unwrapResult(vm.callFunction(fn, vm.undefined, event));
  vm.runtime.executePendingJobs();
  const settled = vm.getPromiseState(promise);
  const value = settled.type === 'fulfilled' ? vm.dump(settled.value) : undefined;
  if (settled.type === 'fulfilled' && !settled.notAPromise) settled.value.dispose();
  for (const h of [promise, event, fn, exports]) if (h.alive) h.dispose();
  if (mod.alive) mod.dispose();
  return value;
}

function time(n: number, run: () => void): { p50: number; p99: number; mean: number } {
  for (let i = 0; i < Math.min(200, n); i++) run();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    run();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { p50: at(0.5), p99: at(0.99), mean: samples.reduce((a, b) => a + b, 0) / n };
}

const fmt = (r: { p50: number; p99: number; mean: number }) =>
  `p50 ${(r.p50 * 1000).toFixed(0)} µs, p99 ${(r.p99 * 1000).toFixed(0)} µs, mean ${(r.mean * 1000).toFixed(0)} µs`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { n: { type: 'string', default: '2000' } } });
  const n = Number(values.n);
  const loadStart = performance.now();
  const quickjs: QuickJSWASMModule = await loadQuickJS();
  console.log(`WASM module load: ${(performance.now() - loadStart).toFixed(1)} ms`);

  const fresh = time(n, () => {
    const rt = quickjs.newRuntime();
    rt.setMemoryLimit(64 * 1024 * 1024);
    rt.setMaxStackSize(256 * 1024);
    rt.setInterruptHandler(() => false);
    const vm = rt.newContext();
    invoke(vm);
    vm.dispose();
    rt.dispose();
  });
  console.log(`new runtime + context per invocation: ${fmt(fresh)}`);

  const shared = quickjs.newRuntime();
  const perContext = time(n, () => {
    const vm = shared.newContext();
    invoke(vm);
    vm.dispose();
  });
  console.log(`new context per invocation (runtime reused): ${fmt(perContext)}`);

  const reused = shared.newContext();
  const sameContext = time(n, () => invoke(reused));
  console.log(`same context reused: ${fmt(sameContext)}`);
  reused.dispose();
  shared.dispose();

  const rt = quickjs.newRuntime();
  const vm = rt.newContext();
  const fibQuickjs = time(5, () => vm.unwrapResult(vm.evalCode(`${FIB}; fib(25)`)).dispose());
  vm.dispose();
  rt.dispose();
  const fib = new Function(`${FIB}; return fib(25)`) as () => number;
  const fibV8 = time(5, () => fib());
  console.log(
    `fib(25): QuickJS ${fibQuickjs.p50.toFixed(1)} ms, V8 ${fibV8.p50.toFixed(2)} ms ` +
      `(${(fibQuickjs.p50 / fibV8.p50).toFixed(0)}x)`,
  );

  for (const bare of [true, false]) {
    const rss = await childRss(bare);
    console.log(`${bare ? 'bare Node child' : 'runner child (module + one runtime)'}: RSS ${rss} MiB`);
  }
}

async function childRss(bare: boolean): Promise<string> {
  const file = fileURLToPath(import.meta.url);
  const proc = fork(file, ['--child', ...(bare ? ['--bare'] : [])], { env: {} });
  const rss = await new Promise<number>((resolve) => proc.once('message', (m) => resolve(m as number)));
  proc.kill();
  return (rss / 2 ** 20).toFixed(1);
}

async function child(bare: boolean): Promise<void> {
  if (!bare) {
    const quickjs = await loadQuickJS();
    const vm = quickjs.newRuntime().newContext();
    invoke(vm);
  }
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  process.send!(process.memoryUsage().rss);
}

if (process.argv.includes('--child')) await child(process.argv.includes('--bare'));
else await main();
