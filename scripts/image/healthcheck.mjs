// The image's HEALTHCHECK: GET /api/health of the role this container runs (read from PID 1's
// command line, `node dist/main.js <role>`); healthy on a 200. A worker serves no HTTP: it is
// healthy while it runs, and it exits when it cannot go on.
import { readFileSync } from 'node:fs';

const args = readFileSync('/proc/1/cmdline', 'utf8').split('\0');
const role = args.includes('worker') ? 'worker' : args.includes('dashboard') ? 'dashboard' : 'public';
if (role === 'worker') process.exit(0);
const port =
  role === 'dashboard' ? (process.env.DASHBOARD_PORT ?? '3001') : (process.env.PUBLIC_PORT ?? '3000');
try {
  const res = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2500) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
