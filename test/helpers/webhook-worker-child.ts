// A worker in a child process (for the test that kills a worker mid-delivery): the webhook
// delivery loop on the platform database named by PLATFORM_DB, configured from the environment.
// Prints `ready` once it runs.
import { startTestWorker } from './worker.js';

const platformDb = process.env.PLATFORM_DB;
if (!platformDb) throw new Error('PLATFORM_DB is required');
// WEBHOOK_* and ALLOW_PRIVATE_HOSTS of the parent's choosing win over the helper's defaults.
const overrides = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      (entry[0].startsWith('WEBHOOK_') || entry[0] === 'ALLOW_PRIVATE_HOSTS') && entry[1] !== undefined,
  ),
);
await startTestWorker(platformDb, overrides);
process.stdout.write('ready\n');
