// Regular expressions written by clients (`_regex` filters, pipeline patterns): one rule for all
// of them, RE2's syntax, and RE2 (linear in the text, no backtracking) for every one evaluated in
// this process. V8's engine backtracks: `^(a+)+$` on 40 `a`s and a `!` would run for hours.
// The engine is re2js, RE2 ported to JavaScript: it installs without a compiler and kept pace
// with the native binding on the realtime path (bench/REGEX.md); re2-wasm never frees a compiled
// pattern and aborted the process after about 4,000 distinct ones.
import { RE2JS } from 're2js';

export type UserRegex = { test(text: string): boolean };

/**
 * Most characters times instructions of the compiled program one test may examine. re2js runs
 * most patterns on its lazy DFA, but a large program overflows the DFA's state cache and falls
 * back to the NFA, which costs about 0.2 µs per character and instruction: `(a|aa){1000}b` (6,003
 * instructions) takes a second on 1,000 characters. Past this bound a value is not matched, as
 * a value past the realtime REGEX_MAX_CHARS is not; any pattern of up to about 1,000
 * instructions (a 128-character pattern rarely has more) examines 1,024 characters.
 */
export const MAX_REGEX_STEPS = 1_000_000;

/** Syntax outcomes of recent patterns: the data API checks the same few patterns over and over. */
const checked = new Map<string, string | null>();
const MAX_CHECKED = 1000;

/** RE2's syntax errors that name what it leaves out on purpose (it needs backtracking). */
const UNSUPPORTED =
  /invalid or unsupported Perl syntax|invalid named capture: `\(\?<[=!]|invalid escape sequence: `\\[1-9k]/;

/** The problem in words: RE2's own message, with a hint for what RE2 leaves out on purpose. */
function problemOf(err: unknown): string {
  const message = (err as Error).message.replace(/^error parsing regexp: /, '');
  return `invalid regular expression (${message})${
    UNSUPPORTED.test(message) ? ': backreferences and lookaround are not supported' : ''
  }`;
}

/** `pattern` compiled by RE2, case-insensitive; undefined when RE2 refuses it (see below why). */
export function compileUserRegex(pattern: string): UserRegex | undefined {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch {
    return undefined;
  }
  const longest = Math.floor(MAX_REGEX_STEPS / re.programSize());
  return { test: (text) => text.length <= longest && re.test(text) };
}

/** Why RE2 refuses `pattern`, or undefined when it accepts it (remembered for recent patterns). */
export function userRegexProblem(pattern: string): string | undefined {
  let problem = checked.get(pattern);
  if (problem === undefined) {
    try {
      RE2JS.compile(pattern); // the syntax does not depend on the flags; case folding costs more
      problem = null;
    } catch (err) {
      problem = problemOf(err);
    }
    if (checked.size >= MAX_CHECKED) checked.delete(checked.keys().next().value!);
    checked.set(pattern, problem);
  }
  return problem ?? undefined;
}
