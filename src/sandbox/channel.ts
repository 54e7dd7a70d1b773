// JSON lines over a stream socket: the framing of the messages between the service and a runner
// (the same as Node's own IPC channel uses). A line longer than `maxLineBytes` ends the channel:
// nothing either side sends comes near it, so one that does is a runner gone wrong.
import type { Socket } from 'node:net';

export interface Channel<Out> {
  send(msg: Out, onError?: (err: Error) => void): void;
}

export function jsonLines<In, Out>(
  socket: Socket,
  onMessage: (msg: In) => void,
  maxLineBytes: number,
  onTooLong: () => void,
): Channel<Out> {
  socket.setEncoding('utf8');
  let buffered = '';
  socket.on('data', (chunk: string) => {
    let start = 0;
    let end = chunk.indexOf('\n');
    while (end >= 0) {
      const line = buffered + chunk.slice(start, end);
      buffered = '';
      if (line) onMessage(JSON.parse(line) as In);
      start = end + 1;
      end = chunk.indexOf('\n', start);
    }
    buffered += chunk.slice(start);
    // Counted in UTF-16 units: at least one byte each.
    if (buffered.length > maxLineBytes) {
      buffered = '';
      onTooLong();
    }
  });
  return {
    send(msg: Out, onError?: (err: Error) => void): void {
      if (socket.destroyed) {
        onError?.(new Error('the channel is closed'));
        return;
      }
      socket.write(`${JSON.stringify(msg)}\n`, onError ? (err) => err && onError(err) : undefined);
    },
  };
}
