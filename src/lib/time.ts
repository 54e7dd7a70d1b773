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
