// Regular expressions written by clients (`_regex` filters, pipeline patterns): one rule for all
// of them, RE2's syntax, and RE2 (linear in the text, no backtracking) for every one evaluated in
// this process. V8's engine backtracks: `^(a+)+$` on 40 `a`s and a `!` would run for hours.
import RE2 from 're2';

export type UserRegex = { test(text: string): boolean };

/** Syntax outcomes of recent patterns: the data API checks the same few patterns over and over. */
const checked = new Map<string, string | null>();
const MAX_CHECKED = 1000;

/** The problem in words: RE2's own message, with a hint for what RE2 leaves out on purpose. */
function problemOf(err: unknown): string {
  const message = (err as Error).message;
  const unsupported = /invalid perl operator|invalid escape sequence: \\[1-9k]/.test(message);
  return `invalid regular expression (${message})${
    unsupported ? ': backreferences and lookaround are not supported' : ''
  }`;
}

/** `pattern` compiled by RE2, case-insensitive; undefined when RE2 refuses it (see below why). */
export function compileUserRegex(pattern: string): UserRegex | undefined {
  try {
    return new RE2(pattern, 'i');
  } catch {
    return undefined;
  }
}

/** Why RE2 refuses `pattern`, or undefined when it accepts it (remembered for recent patterns). */
export function userRegexProblem(pattern: string): string | undefined {
  let problem = checked.get(pattern);
  if (problem === undefined) {
    try {
      new RE2(pattern); // the syntax does not depend on the flags; case folding doubles the cost
      problem = null;
    } catch (err) {
      problem = problemOf(err);
    }
    if (checked.size >= MAX_CHECKED) checked.delete(checked.keys().next().value!);
    checked.set(pattern, problem);
  }
  return problem ?? undefined;
}
