// Regular-expression engines on the realtime path, side by side: how many event values a stream's
// case-insensitive `_regex` examines per second through the project's budget runner
// (src/services/realtime/regex-budget.ts), how many patterns compile per second (each stream and
// each list checks its pattern), the cost of a costly pattern and of the classic ReDoS input, and
// the memory left behind by many compiled patterns. Engines that are not installed are skipped.
//
//   npx tsx scripts/bench/regex-engines.ts [--seconds 2]
import { parseArgs } from 'node:util';
import { createLogger } from '../../src/lib/logger.js';
import { regexBudgets } from '../../src/services/realtime/regex-budget.js';

type Compiled = { test(text: string): boolean };
type Engine = { name: string; compile(pattern: string): Compiled };

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' } } });
const SECONDS = Math.min(Math.max(Number(values.seconds), 0.5), 30);

/** The engines this checkout has; the module names go through a variable so tsc needs none. */
async function engines(): Promise<Engine[]> {
  const load = (name: string) => import(name).catch(() => undefined);
  const found: Engine[] = [];
  const re2js = await load('re2js');
  if (re2js) {
    const { RE2JS } = re2js;
    found.push({ name: 're2js', compile: (p) => RE2JS.compile(p, RE2JS.CASE_INSENSITIVE) });
  }
  const native = await load('re2');
  if (native) {
    const RE2 = native.default;
    found.push({ name: 're2 (native)', compile: (p) => new RE2(p, 'i') });
  }
  const wasm = await load('re2-wasm');
  if (wasm) {
    const { RE2 } = wasm.default ?? wasm;
    found.push({ name: 're2-wasm', compile: (p) => new RE2(p, 'iu') });
  }
  return found;
}

/** Patterns a stream filter typically carries, and values of the size events carry. */
const PATTERNS = [
  '^ali',
  'smith$',
  'error|warn',
  '[0-9]{3}-[0-9]{4}',
  'caf[eé]',
  '^user_[a-z]+@example\\.com$',
];
const VALUES = [
  'Alice Smith',
  'user_bob@example.com',
  'WARN: disk 91% full on node-3',
  'call 555-1234 before noon',
  'Café de Flore',
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt',
];

/** Calls `fn` repeatedly for about SECONDS; operations per second. */
function rate(fn: (i: number) => void): number {
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < SECONDS * 1000) {
    for (let k = 0; k < 1000; k++) fn(n++);
  }
  return n / ((performance.now() - started) / 1000);
}

function timeMs(fn: () => void): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

const budget = regexBudgets({ msPerSecond: 1e9, log: createLogger('silent') }).of('bench');
const rows: string[] = [];
for (const engine of await engines()) {
  const compiled = PATTERNS.map((p) => engine.compile(p));
  let matched = 0;
  const tests = rate((i) => {
    if (budget(compiled[i % compiled.length]!, VALUES[i % VALUES.length]!)) matched++;
  });
  if (matched === 0) throw new Error(`${engine.name}: no value matched`);
  const costly = engine.compile('(a|aa){1000}b');
  const costlyMs = timeMs(() => costly.test('a'.repeat(1000)));
  const evil = engine.compile('^(a+)+$');
  const evilMs = timeMs(() => evil.test(`${'a'.repeat(40)}!`));
  // Distinct patterns, as many streams and lists bring: an engine that never frees a compiled
  // pattern fills its heap here (re2-wasm's fixed 16 MiB WebAssembly memory aborts).
  global.gc?.();
  const before = process.memoryUsage().rss;
  let compiles: string;
  let count = 0;
  try {
    compiles = Math.round(
      rate((i) => engine.compile(`^item-${i}-(a|b)+[0-9]*$`).test(`item-${i}-ab`) && count++),
    ).toLocaleString('en');
  } catch (err) {
    compiles = `fails after ${count.toLocaleString('en')} patterns: ${(err as Error).message.slice(0, 60)}`;
  }
  global.gc?.();
  const grownMiB = (process.memoryUsage().rss - before) / 1024 ** 2;
  rows.push(
    `| ${engine.name} | ${Math.round(tests).toLocaleString('en')} | ${costlyMs.toFixed(1)} | ${evilMs.toFixed(2)} | ${compiles} | ${grownMiB.toFixed(0)} |`,
  );
}
console.log(`Node ${process.version}, ${SECONDS} s per measure`);
console.log(
  '| engine | event values tested/s (budget runner) | (a|aa){1000}b on 1,000 a, ms | ^(a+)+$ on 40 a + !, ms | distinct patterns compiled/s | RSS grown meanwhile, MiB |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
