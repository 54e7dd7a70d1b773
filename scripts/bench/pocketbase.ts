// The PocketBase arm of `npm run bench` (issue 47): a peer's whole process on the same machine in
// the same rounds, so that the API's CPU per request has an outside yardstick. PocketBase's
// `examples/base` at a pinned version is built once with `go install` into
// .stack/tools/pocketbase (the arm is left out, with the reason, when Go is not on the machine),
// started on a data folder of its own, and seeded like the API's project: a collection `items`
// with name, price and tags, the same number of records, no index beyond PocketBase's own, and
// public list, view, create and update rules, as a publishable key has on the API here. Its CPU
// per request is its whole process's: HTTP, the rules and SQLite together.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoPath } from '../../src/lib/paths.js';
import type { HttpRequest } from './load.js';

export const POCKETBASE_VERSION = 'v0.36.8';
const MODULE = 'github.com/pocketbase/pocketbase/examples/base';
const BIN_DIR = repoPath('.stack/tools/pocketbase', POCKETBASE_VERSION);
const run = promisify(execFile);

/** The binary's path, built on first use; or the reason there is none. */
export async function pocketbaseBinary(): Promise<{ bin: string } | { missing: string }> {
  const bin = join(BIN_DIR, 'base');
  if (existsSync(bin)) return { bin };
  try {
    await run('go', ['install', `${MODULE}@${POCKETBASE_VERSION}`], {
      env: { ...process.env, GOBIN: BIN_DIR, CGO_ENABLED: '0' },
      timeout: 15 * 60_000,
    });
  } catch (err) {
    return {
      missing: `go install ${MODULE}@${POCKETBASE_VERSION} failed: ${(err as Error).message.split('\n')[0]}`,
    };
  }
  return existsSync(bin) ? { bin } : { missing: `go install left no ${bin}` };
}

export interface PocketBase {
  child: ChildProcess;
  url: string;
  /** The seeded records' ids, in the order they were made. */
  ids: string[];
  stop: () => Promise<void>;
}

const EMAIL = 'bench@example.com';
const PASSWORD = 'bench-password-1234';

/** Starts PocketBase on `port` with a fresh data folder and seeds `seeded` records. */
export async function startPocketBase(bin: string, port: number, seeded: number): Promise<PocketBase> {
  // Its folders all under one of its own: by default PocketBase writes a migration file for every
  // collection made over its API next to the data folder, and runs them at the next start.
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-pocketbase-'));
  const folders = [
    `--dir=${join(dir, 'pb_data')}`,
    `--migrationsDir=${join(dir, 'pb_migrations')}`,
    `--hooksDir=${join(dir, 'pb_hooks')}`,
    `--publicDir=${join(dir, 'pb_public')}`,
    '--automigrate=false',
  ];
  await run(bin, ['superuser', 'upsert', EMAIL, PASSWORD, ...folders], { timeout: 60_000 });
  const child = spawn(bin, ['serve', `--http=127.0.0.1:${port}`, ...folders], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
    });
  try {
    return { child, url, ids: await seed(url, seeded, child), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Waits for the server, makes the collection and its records; the records' ids in order. */
async function seed(url: string, seeded: number, child: ChildProcess): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`pocketbase exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (attempt > 300) throw new Error('pocketbase did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  const call = async (method: string, path: string, body: unknown, token?: string) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`pocketbase ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const { token } = (await call('POST', '/api/collections/_superusers/auth-with-password', {
    identity: EMAIL,
    password: PASSWORD,
  })) as { token: string };
  await call(
    'POST',
    '/api/collections',
    {
      name: 'items',
      type: 'base',
      fields: [
        { name: 'name', type: 'text', required: true },
        { name: 'price', type: 'number' },
        { name: 'tags', type: 'json' },
      ],
      listRule: '',
      viewRule: '',
      createRule: '',
      updateRule: '',
    },
    token,
  );
  const ids: string[] = new Array(seeded);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < seeded; i = next++) {
        const record = await call('POST', '/api/collections/items/records', {
          name: `item-${i}`,
          price: i % 100,
          tags: ['a', 'b'],
        });
        ids[i] = record.id as string;
      }
    }),
  );
  return ids;
}

/** The bench's operations as PocketBase's records API serves them (the same filters, sort and page size). */
export function pocketbaseRequest(
  op: string,
  i: number,
  ids: string[],
  pick: (list: string[], i: number) => string,
) {
  const lo = i % 50;
  const requests: Record<string, () => HttpRequest> = {
    'get by id': () => ({ method: 'GET', path: `/${pick(ids, i)}` }),
    // skipTotal: the API's list counts nothing either (it asks for one more than the page).
    'list 20, filter + sort': () => ({
      method: 'GET',
      path: `?${new URLSearchParams({ filter: `price >= ${lo} && price < ${lo + 30}`, sort: '-price,id', perPage: '20', skipTotal: '1' })}`,
    }),
    create: () => ({
      method: 'POST',
      path: '',
      body: JSON.stringify({ name: `new-${i}`, price: i % 100, tags: ['a', 'b'] }),
    }),
    update: () => ({ method: 'PATCH', path: `/${pick(ids, i)}`, body: JSON.stringify({ price: i % 100 }) }),
  };
  return requests[op]!();
}
