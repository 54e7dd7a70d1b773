// The engine behind clients' regular expressions (src/lib/user-regex.ts): RE2's syntax, linear
// time, case-insensitive, and a bound on one test's work so that a huge program cannot hold the
// process on a long value.
import { expect } from 'chai';
import { compileUserRegex, MAX_REGEX_STEPS, userRegexProblem } from '../../src/lib/user-regex.js';

describe('user regular expressions (RE2 syntax, linear time)', () => {
  it('matches case-insensitively, Unicode included', () => {
    expect(compileUserRegex('^caf[eé]')!.test('CAFÉ au lait')).to.equal(true);
    expect(compileUserRegex('smith$')!.test('Alice SMITH')).to.equal(true);
    expect(compileUserRegex('smith$')!.test('Smithers')).to.equal(false);
  });

  it('runs the classic ReDoS inputs in milliseconds', () => {
    const started = performance.now();
    expect(compileUserRegex('^(a+)+$')!.test(`${'a'.repeat(40)}!`)).to.equal(false);
    expect(compileUserRegex('(x+x+)+y')!.test('x'.repeat(50_000))).to.equal(false);
    expect(compileUserRegex('^(a|aa)+$')!.test('a'.repeat(50_000))).to.equal(true);
    expect(performance.now() - started).to.be.below(500);
  });

  it('does not examine a value that would cost more than MAX_REGEX_STEPS, and stays fast', () => {
    // 6,003 instructions: about a second on 1,000 characters on re2js's NFA.
    const huge = compileUserRegex('(a|aa){1000}b')!;
    const started = performance.now();
    expect(huge.test(`${'a'.repeat(1000)}b`)).to.equal(false); // would match; over the bound
    expect(performance.now() - started).to.be.below(100);
    // Within the bound the same pattern is run: 150 characters x 6,003 < MAX_REGEX_STEPS.
    expect(6003 * 150).to.be.below(MAX_REGEX_STEPS);
    expect(huge.test(`${'a'.repeat(149)}b`)).to.equal(false); // too few `a`s: a real no
    expect(compileUserRegex('(a|aa){70}b')!.test(`${'a'.repeat(140)}b`)).to.equal(true);
  });

  it('names what RE2 leaves out, and accepts what it runs', () => {
    for (const pattern of ['(a)\\1', '^(?=a)', '(?<!a)b', '(?<=a)b', '(?<n>a)\\k<n>']) {
      expect(userRegexProblem(pattern), pattern).to.match(
        /^invalid regular expression \(.+\): backreferences and lookaround are not supported$/,
      );
      expect(compileUserRegex(pattern), pattern).to.equal(undefined);
    }
    expect(userRegexProblem('(')).to.equal('invalid regular expression (missing closing ): `(`)');
    expect(userRegexProblem('a{2000}')).to.match(/^invalid regular expression \(invalid repeat count/);
    expect(userRegexProblem('[z-a]')).to.match(/invalid character class range/);
    expect(userRegexProblem('(?P<name>x)|\\d+\\.\\d*')).to.equal(undefined);
  });
});
