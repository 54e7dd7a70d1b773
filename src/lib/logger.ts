// Structured JSON logs (pino), one line per event, to stdout.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino(
    {
      level,
      base,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
        censor: '[redacted]',
      },
    },
    // Synchronous writes, as Node itself writes to a pipe or a file on stdout: pino's default
    // hands each line to the thread pool (one access-log line per request), which costs a thread
    // hop and a callback per line, and under CPU contention a context switch.
    pino.destination({ dest: 1, sync: true }),
  );
}
