// The servers `npm run bench` measures (compare.ts), each in a process of its own: PocketBase
// (pocketbase.ts; left out, with the reason, when it cannot be built), the thin server, the API
// and, with --before or --before-env, a second API as the `before` arm. With --profile each Node
// server writes its CPU profile into a folder of its own; with --gc each runs with
// --trace-gc-nvp, its stdout going to a file that gc-trace.ts reads after each measure.
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { freePort, start, startApi, stop, up } from './setup.js';
import { gcTrace } from './gc-trace.js';
import { pocketbaseBinary, startPocketBase, type PocketBase } from './pocketbase.js';

export interface ServerOptions {
  platformDb: string;
  projectDb: string;
  seeded: number;
  /** A folder for CPU profiles (node --cpu-prof), or undefined. */
  profile?: string;
  gc: boolean;
  pocketbase: boolean;
  /** Another build's work tree: its dist/main.js is the `before` arm. */
  before?: string;
  /** KEY=VALUE,... settings of the `before` arm (alone: the same build so set). */
  beforeEnv: string;
}

/** A Node server of the bench: its process and its base URL. */
export interface Server {
  child: ChildProcess;
  url: string;
}

export async function startServers(o: ServerOptions) {
  const profiled = (server: string) =>
    o.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profile, server)}`] : [];
  const gcDir = o.gc ? mkdtempSync(join(os.tmpdir(), 'bench-gc-')) : undefined;
  const gcOutput = (server: string) => (gcDir ? openSync(join(gcDir, server), 'w') : undefined);
  const gcFlags = o.gc ? ['--trace-gc-nvp'] : [];
  const traces = gcDir ? { thin: gcTrace(join(gcDir, 'thin')), api: gcTrace(join(gcDir, 'api')) } : undefined;

  // PocketBase first: a failure to build or start it leaves no other server behind.
  const pbBinary = o.pocketbase ? await pocketbaseBinary() : { missing: 'left out (--pocketbase off)' };
  if ('missing' in pbBinary) console.log(`PocketBase arm: ${pbBinary.missing}`);
  const pocketbase: PocketBase | undefined =
    'bin' in pbBinary ? await startPocketBase(pbBinary.bin, await freePort(), o.seeded) : undefined;

  const thinPort = await freePort();
  const thin: Server = {
    child: await start(
      'scripts/bench/thin-server.ts',
      [],
      { THIN_DB: o.projectDb, THIN_COLLECTION: 'items', THIN_PORT: String(thinPort) },
      up(`http://127.0.0.1:${thinPort}/items?price_gte=0&price_lt=1`),
      [...profiled('thin'), ...gcFlags],
      gcOutput('thin'),
    ),
    url: `http://127.0.0.1:${thinPort}/items`,
  };
  const apiPort = await freePort();
  const api: Server = {
    child: await startApi(o.platformDb, apiPort, [...profiled('api'), ...gcFlags], {}, gcOutput('api')),
    url: `http://127.0.0.1:${apiPort}/api/data`,
  };
  const beforeEnv = Object.fromEntries(
    o.beforeEnv
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  let before: Server | undefined;
  if (o.before || Object.keys(beforeEnv).length > 0) {
    const beforePort = await freePort();
    before = {
      child: await startApi(
        o.platformDb,
        beforePort,
        profiled('before'),
        beforeEnv,
        undefined,
        o.before ? join(o.before, 'dist/main.js') : undefined,
      ),
      url: `http://127.0.0.1:${beforePort}/api/data`,
    };
  }

  return {
    pocketbase,
    /** Why PocketBase is not measured, when it is not. */
    pocketbaseMissing: 'missing' in pbBinary ? pbBinary.missing : undefined,
    thin,
    api,
    before,
    /** The garbage collector's traces of the thin server and the API (--gc). */
    traces,
    /** Stops every server; the traces (the API's stdout, its access log included, tens of MB) go too. */
    async stopAll() {
      await Promise.all([
        stop(thin.child),
        stop(api.child),
        before && stop(before.child),
        pocketbase?.stop(),
      ]);
      if (gcDir) rmSync(gcDir, { recursive: true, force: true });
    },
  };
}
