// Small timing helpers.

export class TimeoutError extends Error {}

/** Rejects with TimeoutError when the promise has not settled after ms. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const elapsedMs = (startNs: bigint) =>
  Math.round(Number(process.hrtime.bigint() - startNs) / 1e4) / 100;

/** The largest time a Date holds (ECMAScript's time range), in ms either side of 1970. */
const MAX_TIME_MS = 8.64e15;

/**
 * A formatter equal to `new Date(ms).toISOString()` that formats the part up to the second once
 * per second: most times a process formats (log lines, the system fields of the documents it
 * writes) fall in the second of the one before, and `toISOString` was a measurable share of a
 * log line's or a written document's cost. Each user keeps its own, so that one formatting old
 * times does not churn another's second.
 */
export function isoFormatter(): (ms: number) => string {
  let second = NaN;
  let prefix = '';
  return (ms) => {
    const rest = ms % 1000;
    const millis = rest < 0 ? rest + 1000 : rest;
    if (ms - millis !== second) {
      // A time outside the Date range (or NaN) throws the RangeError toISOString throws.
      if (!(Math.abs(ms) <= MAX_TIME_MS)) return new Date(ms).toISOString();
      second = ms - millis;
      prefix = new Date(second).toISOString().slice(0, -4);
    }
    return `${prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  };
}
