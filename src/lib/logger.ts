// Structured JSON logs (pino), one line per event, to stdout.
import { pino, type Logger } from 'pino';
import { isoFormatter } from './time.js';

export type { Logger };

/** Lines are gathered up to this many bytes before one write... */
const BUFFER_BYTES = 4096;
/** ...and written at least this often, so a quiet process's lines are never held longer. */
const FLUSH_MS = 100;

let stdout: ReturnType<typeof pino.destination> | undefined;

/**
 * The one stdout destination of the process, shared by every logger. Writes are synchronous, as
 * Node's own writes to a pipe or a file on stdout are (pino's asynchronous default hands each
 * write to the thread pool), and batched: one write per 4 KiB of lines (about twenty access-log
 * lines) or per 100 ms instead of one per line, which was a write system call per request. What
 * is still buffered when the process exits, by `process.exit` or an uncaught error, is written
 * then; only a kill with SIGKILL can lose the last 100 ms of lines.
 */
function stdoutDestination() {
  if (stdout) return stdout;
  const destination = pino.destination({
    dest: 1,
    sync: true,
    minLength: BUFFER_BYTES,
    periodicFlush: FLUSH_MS,
  });
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // stdout already closed: nothing left to write to.
    }
  });
  return (stdout = destination);
}

/** pino's `time` field, in ISO 8601 as Date#toISOString writes it. */
const iso = isoFormatter();
export const isoTime = (now = Date.now()) => `,"time":"${iso(now)}"`;

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino(
    {
      level,
      base,
      timestamp: () => isoTime(),
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
        censor: '[redacted]',
      },
    },
    stdoutDestination(),
  );
}
