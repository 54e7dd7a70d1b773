// The public role in a child process that kills itself in the middle of a document write (for the
// tests of the webhook outbox's intents), on the platform database named by PLATFORM_DB. CRASH_AT
// says where: `after-write` (the document is written, its events not yet confirmed) or
// `before-write` (the intents are written, the document not). The hook wraps the event seam of
// this process only; nothing in src/ knows of it. Prints `ready <url>` once it listens.
import { startTestApp } from './app.js';

const platformDb = process.env.PLATFORM_DB;
const crashAt = process.env.CRASH_AT;
if (!platformDb || (crashAt !== 'after-write' && crashAt !== 'before-write'))
  throw new Error('PLATFORM_DB and CRASH_AT (after-write | before-write) are required');

const app = await startTestApp('public', 'crash_child', { PLATFORM_DB: platformDb });
const events = app.services.events;
const announce = events.announce.bind(events);
const die = (): void => {
  process.kill(process.pid, 'SIGKILL');
};
events.announce = async (intents) => {
  const announcement = await announce(intents);
  if (crashAt === 'before-write') die();
  return { ...announcement, emit: async () => die() };
};
process.stdout.write(`ready ${app.url}\n`);
