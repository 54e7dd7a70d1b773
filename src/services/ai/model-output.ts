// Reading what the model wrote: one JSON object, nothing else. Anything else is a 502 naming the
// problem; the model's text is never passed on as if it were valid.
import { ApiError } from '../../http/errors.js';

export const invalidOutput = (what: string, problem: string) =>
  new ApiError(502, 'AI_INVALID_OUTPUT', `The AI model did not produce a valid ${what}: ${problem}`);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON object of an answer; a ```json fence around it is tolerated. */
export function parseModelJson(content: string, what: string): Record<string, unknown> {
  const trimmed = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw invalidOutput(what, 'the answer is not JSON');
  }
  if (!isRecord(parsed)) throw invalidOutput(what, 'the answer is not a JSON object');
  return parsed;
}

/** Re-labels a 4xx of the service's own checks as a problem of the model's answer. */
export function asModelProblem(err: unknown, what: string): never {
  if (err instanceof ApiError && err.status >= 400 && err.status < 500)
    throw invalidOutput(what, err.message);
  throw err;
}
