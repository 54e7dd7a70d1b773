// The time budget of a project's stream regular expressions (src/services/realtime/regex-budget.ts),
// on a clock the test moves: a costly pattern uses up its project's budget and then does not match
// (logged once), another project is untouched, the budget refills with time, and a value longer
// than REGEX_MAX_CHARS is not examined at all.
import { expect } from 'chai';
import { createLogger } from '../../src/lib/logger.js';
import { regexBudgets, REGEX_MAX_CHARS } from '../../src/services/realtime/regex-budget.js';

describe('realtime regex budget', () => {
  let clock = 0;
  const warnings: unknown[] = [];
  const log = createLogger('silent');
  log.warn = ((obj: unknown) => void warnings.push(obj)) as typeof log.warn;
  /** A pattern that matches everything and takes `ms` of the clock per test. */
  const costly = (ms: number) => ({
    tests: 0,
    test() {
      this.tests++;
      clock += ms;
      return true;
    },
  });
  beforeEach(() => {
    clock = 0;
    warnings.length = 0;
  });

  it("stops a project's costly pattern at its budget, and only that project's", () => {
    const budgets = regexBudgets({ msPerSecond: 50, log, now: () => clock });
    const greedy = budgets.of('greedy');
    const calm = budgets.of('calm');
    const slow = costly(30);
    const results = Array.from({ length: 10 }, () => greedy(slow, 'abc'));
    // 100 ms of burst: four tests of 30 ms run (the fourth starts with 10 ms left), then none.
    expect(results).to.deep.equal([true, true, true, true, false, false, false, false, false, false]);
    expect(slow.tests).to.equal(4);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.deep.include({ projectId: 'greedy' });
    const cheap = costly(1);
    expect(calm(cheap, 'abc')).to.equal(true);
  });

  it('refills with time: 50 ms a second', () => {
    const budgets = regexBudgets({ msPerSecond: 50, log, now: () => clock });
    const run = budgets.of('p');
    const slow = costly(40);
    while (run(slow, 'x'));
    const spent = slow.tests;
    clock += 1000; // +50 ms of budget; the debt of the last test (down to -20 ms) is paid first
    expect(run(slow, 'x')).to.equal(true);
    expect(run(slow, 'x')).to.equal(false);
    expect(slow.tests).to.equal(spent + 1);
  });

  it('does not examine a value longer than REGEX_MAX_CHARS', () => {
    const run = regexBudgets({ msPerSecond: 50, log, now: () => clock }).of('p');
    const probe = costly(0);
    expect(run(probe, 'a'.repeat(REGEX_MAX_CHARS))).to.equal(true);
    expect(run(probe, 'a'.repeat(REGEX_MAX_CHARS + 1))).to.equal(false);
    expect(probe.tests).to.equal(1);
  });
});
