// Patterns a backtracking engine runs in exponential time. The embedded database
// (mongo-java-server) evaluates `$regex` with java.util.regex, which backtracks and has no time
// limit (maxTimeMS does not reach it): `^(a+)+$` on 30 `a`s and a `!` runs for minutes. RE2
// (src/lib/user-regex.ts) accepts such patterns, being linear itself, so the embedded engine needs
// these extra rules: no repeated group that itself repeats or alternates, and at most two
// unbounded repetitions in all (`a*a*a*b` and `.*a.*a.*b` on 1,000 characters each ran for more
// than 3 s: the time grows as the value's length to their number, times the length again for the
// unanchored search). Two still cost the square of a long value: docs/data-api.md says so.

/** Unbounded repetitions allowed in one pattern on the embedded engine. */
export const MAX_UNBOUNDED_REPETITIONS = 2;

/** What makes a repeated group explode: a quantifier or an alternation inside it. */
interface Group {
  repeats: boolean;
  alternates: boolean;
}

/** Length of the repeating quantifier at `i` (`*`, `+`, `{n,}`, `{n,m}` with m > 1), else 0. */
function repeatingQuantifier(pattern: string, i: number): number {
  const c = pattern[i];
  if (c === '*' || c === '+') return 1;
  if (c !== '{') return 0;
  const match = /^\{(\d*)(,(\d*))?\}/.exec(pattern.slice(i));
  if (!match) return 0;
  const repeats = match[2] !== undefined && (match[3] === '' || Number(match[3]) > 1);
  return repeats || Number(match[1]) > 1 ? match[0].length : 0;
}

/** Skips a character class starting at `[` (index i); returns the index after its `]`. */
function skipClass(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === '^') j++;
  if (pattern[j] === ']') j++; // a leading `]` is a literal
  while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
  return j + 1;
}

/**
 * Why a backtracking engine would blow up on `pattern` (a repeated group holding a quantifier or
 * an alternation, as `(a+)+`, `(a|aa)*`, `(x?y*){2,}`), or undefined. Syntax is RE2's, already
 * checked by the caller.
 */
export function backtrackingProblem(pattern: string): string | undefined {
  const stack: Group[] = [{ repeats: false, alternates: false }];
  let unbounded = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    const top = stack[stack.length - 1]!;
    if (c === '\\') {
      i += 2;
    } else if (c === '[') {
      i = skipClass(pattern, i);
    } else if (c === '(') {
      stack.push({ repeats: false, alternates: false });
      i += 1;
      if (pattern[i] === '?') i += 1; // `(?:`, `(?i)`, `(?P<name>`: not a quantifier
    } else if (c === ')') {
      const group = stack.length > 1 ? stack.pop()! : top;
      const parent = stack[stack.length - 1]!;
      const quantifier = repeatingQuantifier(pattern, i + 1);
      if (quantifier && (group.repeats || group.alternates)) {
        return 'a repeated group that repeats or alternates inside (as `(a+)+` or `(a|b)*`) is not supported on the embedded database: its engine backtracks without a time limit';
      }
      parent.repeats ||= group.repeats || quantifier > 0 || pattern[i + 1] === '?';
      i += 1;
    } else if (c === '|') {
      top.alternates = true;
      i += 1;
    } else {
      const quantifier = repeatingQuantifier(pattern, i);
      if (quantifier || c === '?') top.repeats = true;
      if (quantifier && (c !== '{' || /^\{\d*,\}/.test(pattern.slice(i, i + quantifier)))) {
        if (++unbounded > MAX_UNBOUNDED_REPETITIONS) {
          return 'more than two unbounded repetitions (`*`, `+`, `{n,}`, as in `.*a.*b.*c`) are not supported on the embedded database: its engine backtracks without a time limit';
        }
      }
      i += quantifier || 1;
    }
  }
  return undefined;
}
