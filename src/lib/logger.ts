// Logs (pino), one line per event, to stdout: JSON lines for machines, or on a terminal a
// readable line per event (LOG_FORMAT, docs/configuration.md).
import { writeSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { isoFormatter } from './time.js';

export type { Logger };
export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT's `auto`: readable on a terminal, JSON when stdout is a pipe or a file. */
export const resolveLogFormat = (
  setting: 'auto' | LogFormat,
  isTTY = process.stdout.isTTY === true,
): LogFormat => (setting === 'auto' ? (isTTY ? 'pretty' : 'json') : setting);

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

const STATUS_COLOURS = [
  [500, 31],
  [400, 33],
  [300, 36],
  [0, 32],
] as const;

/**
 * A destination that writes each JSON line as a person reads it: the access log's line as
 * `12:04:05 GET /api/data/todos 200 3.1 ms`, any other through pino-pretty (time, level, message,
 * then the fields). Synchronous and unbatched: it is for a development terminal.
 */
export function prettyDestination(
  colour: boolean,
  write: (text: string) => void = (text) => void writeSync(1, text),
) {
  const pretty = prettyFactory({
    colorize: colour,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,service,requestId',
    singleLine: true,
  });
  const paint = (code: number, text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    write(line: string) {
      const event = JSON.parse(line) as Record<string, unknown>;
      if (event.msg === 'request' && typeof event.method === 'string') {
        const status = Number(event.status);
        const code = STATUS_COLOURS.find(([from]) => status >= from)![1];
        const at = new Date(String(event.time)).toTimeString().slice(0, 8);
        write(
          `${paint(2, at)} ${event.method} ${event.path} ${paint(code, String(status))} ${event.ms} ms\n`,
        );
      } else {
        write(pretty(event));
      }
    },
  };
}

export function createLogger(
  level: string,
  base: Record<string, unknown> = {},
  format: LogFormat = 'json',
): Logger {
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
    format === 'pretty' ? prettyDestination(process.stdout.isTTY === true) : stdoutDestination(),
  );
}
