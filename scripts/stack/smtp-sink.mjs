#!/usr/bin/env node
// SMTP sink for the local stack: accepts any message on 127.0.0.1 (no auth, no TLS) and writes it
// as one JSON file, so tests can assert on what the app really sent over SMTP.
//
//   node scripts/stack/smtp-sink.mjs [--port 2625] [--dir .stack/test/mail]
//
// Each file is <id>.json: { "id", "receivedAt", "from", "to": [...], "raw" }. "from" and "to" are
// the SMTP envelope (MAIL FROM / RCPT TO), which is what a delivery really used; the headers are
// in "raw". Files are written under a temporary name and renamed, so a reader polling the
// directory never sees half a message. Plain JS on purpose: it runs without a build step.

import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SMTPServer } from 'smtp-server';

const HOST = '127.0.0.1';
// Large enough for attachments a test might send; a real relay would have a similar cap.
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.STACK_SMTP_PORT ?? '2625' },
    dir: { type: 'string', default: process.env.SMTP_SINK_DIR ?? '.stack/test/mail' },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`[smtp-sink] invalid port '${values.port}'`);
  process.exit(2);
}
const dir = resolve(values.dir);
mkdirSync(dir, { recursive: true });

let sequence = 0;
// Sortable by arrival (time first, then a counter for messages in the same millisecond), unique
// across restarts thanks to the random tail.
function newId() {
  sequence = (sequence + 1) % 1_000_000;
  return `${Date.now()}-${String(sequence).padStart(6, '0')}-${randomBytes(4).toString('hex')}`;
}

function saveMessage(session, raw) {
  const id = newId();
  const record = {
    id,
    receivedAt: new Date().toISOString(),
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    to: session.envelope.rcptTo.map((r) => r.address),
    raw,
  };
  const final = join(dir, `${id}.json`);
  const temp = join(dir, `.${id}.json.tmp`);
  writeFileSync(temp, JSON.stringify(record, null, 2) + '\n');
  renameSync(temp, final);
  return { id, final, record };
}

const server = new SMTPServer({
  name: 'smtp-sink.local',
  banner: 'local test sink, messages are written to disk',
  secure: false,
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  size: MAX_MESSAGE_BYTES,
  // smtp-server logs every command when given a logger; one line per message is enough here.
  logger: false,
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('error', callback);
    stream.on('end', () => {
      if (stream.sizeExceeded) {
        const err = new Error(`message exceeds ${MAX_MESSAGE_BYTES} bytes`);
        err.responseCode = 552;
        callback(err);
        return;
      }
      try {
        // latin1 would be byte-exact, but SMTP bodies the app sends are 7bit/8bit UTF-8 or
        // transfer-encoded ASCII, and tests compare against JS strings.
        const raw = Buffer.concat(chunks).toString('utf8');
        const { id, record } = saveMessage(session, raw);
        console.log(
          `[smtp-sink] ${id} from=<${record.from}> to=${record.to.map((a) => `<${a}>`).join(',')} bytes=${raw.length}`,
        );
        callback(null, `queued as ${id}`);
      } catch (err) {
        console.error(`[smtp-sink] cannot store message: ${err.message}`);
        const reply = new Error('cannot store message');
        reply.responseCode = 451;
        callback(reply);
      }
    });
  },
});

server.on('error', (err) => {
  console.error(`[smtp-sink] ${err.code ?? ''} ${err.message}`);
  if (err.code === 'EADDRINUSE' || err.code === 'EACCES') process.exit(1);
});

server.listen(port, HOST, () => {
  console.log(`[smtp-sink] ready on ${HOST}:${port}, writing to ${dir}`);
});

function stop(signal) {
  console.log(`[smtp-sink] ${signal}, stopping`);
  server.close(() => {
    console.log('[smtp-sink] stopped');
    process.exit(0);
  });
  // Open client connections would keep close() waiting; the stack's stop has its own deadline,
  // but exiting here first keeps its log clean.
  setTimeout(() => process.exit(0), 3000).unref();
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
