// Loaded into the API process by `npm run soak` (node --import): every 5 s it appends the
// process's memory figures to MEMORY_PROBE_FILE, so that the soak can tell the JavaScript heap
// from buffers and from memory the runtime keeps reserved. It forces no garbage collection.
import { appendFileSync } from 'node:fs';

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  setInterval(() => {
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    appendFileSync(
      file,
      `${JSON.stringify({ at: Date.now(), rss, heapTotal, heapUsed, external, arrayBuffers })}\n`,
    );
  }, 5000).unref();
}
