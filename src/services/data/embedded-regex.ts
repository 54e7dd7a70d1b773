// The embedded database runs `$regex` with a backtracking engine and no time limit
// (src/lib/regex-backtracking.ts): on it, a filter or pipeline pattern that could backtrack
// exponentially is a 400 before the query is sent. Real MongoDB bounds a query with maxTimeMS.
import { badRequest } from '../../http/errors.js';
import { backtrackingProblem } from '../../lib/regex-backtracking.js';

const REGEX_EXPRESSIONS = new Set(['$regexMatch', '$regexFind', '$regexFindAll']);

/** Every pattern in a filter or pipeline: `$regex` values and the `regex` of the expressions. */
function patternsIn(node: unknown, into: string[]): string[] {
  if (Array.isArray(node)) for (const item of node) patternsIn(item, into);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$regex' && typeof value === 'string') into.push(value);
      else if (REGEX_EXPRESSIONS.has(key) && value && typeof value === 'object') {
        const regex = (value as { regex?: unknown }).regex;
        if (typeof regex === 'string') into.push(regex);
      }
      patternsIn(value, into);
    }
  }
  return into;
}

/**
 * Refuses (400 INVALID_REGEX) a backtracking-prone pattern in `node` when the project's data is on
 * the embedded engine; `onEmbedded` is asked only when there is a pattern.
 */
export async function refuseBacktrackingOnEmbedded(
  node: unknown,
  projectId: string,
  onEmbedded: ((projectId: string) => Promise<boolean>) | undefined,
): Promise<void> {
  if (!onEmbedded) return;
  const patterns = patternsIn(node, []);
  if (patterns.length === 0 || !(await onEmbedded(projectId))) return;
  for (const pattern of patterns) {
    const problem = backtrackingProblem(pattern);
    if (problem)
      throw badRequest(`Invalid regular expression "${pattern}": ${problem}`, undefined, 'INVALID_REGEX');
  }
}
