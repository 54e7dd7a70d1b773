// The console of one call inside a runner: lines kept up to the call's byte limit, the last one
// saying where it was cut, each also handed on as it is written (the runner streams them).
import type { LogLevel, LogLine } from './protocol.js';

export /** Console output of one invocation, cut at the byte limit with one line saying so. */
class LogSink {
  readonly lines: LogLine[] = [];
  truncated = false;
  private bytes = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly started: number,
    private readonly onLine?: (line: LogLine) => void,
  ) {}

  write(level: LogLevel, message: string): void {
    if (this.truncated) return;
    const size = Buffer.byteLength(message);
    if (this.bytes + size > this.maxBytes) {
      this.truncated = true;
      this.keep({ level: 'warn', message: `[log truncated at ${this.maxBytes} bytes]`, atMs: this.at() });
      return;
    }
    this.bytes += size;
    this.keep({
      level: ['log', 'info', 'warn', 'error'].includes(level) ? level : 'log',
      message,
      atMs: this.at(),
    });
  }

  private keep(line: LogLine): void {
    this.lines.push(line);
    this.onLine?.(line);
  }

  private at(): number {
    return Date.now() - this.started;
  }
}
