// A web app built on the published urBackend browser SDK (@urbackend/sdk, pinned in package.json),
// bundled by esbuild into one script as a bundler would for a customer's page, served from a
// loopback origin of its own. `window.runSdk(config)` goes through the SDK's steps in order and
// reports each as the SDK answered it: its outcome, or the error it threw (a browser that refuses
// an answer shows as the SDK's "Failed to fetch").
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';

export interface SdkStep {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SdkRunConfig {
  api: string;
  key: string;
  email: string;
  password: string;
  newPassword: string;
  /** A collection with RLS on `userId` and fields `text` (String, required) and `userId`. */
  collection: string;
}

/** The SDK's steps, in a page script (plain JavaScript: the page runs it as written). */
const RUNNER = `
window.runSdk = async (c) => {
  // Each run starts as a first visit: the SDK keeps its tokens in localStorage.
  localStorage.clear();
  const client = UrBackend.default({ apiKey: c.key, baseUrl: c.api });
  const results = [];
  const step = async (name, fn) => {
    try {
      const detail = await fn();
      results.push({ name, ok: true, detail: detail === undefined ? '' : String(detail) });
    } catch (e) {
      const status = e && e.statusCode !== undefined ? ' (' + e.statusCode + ')' : '';
      results.push({ name, ok: false, detail: String((e && e.message) || e) + status });
    }
  };
  const must = (cond, what) => { if (!cond) throw new Error(what); };
  let doc, upload;
  await step('auth.signUp', async () => {
    const r = await client.auth.signUp({ email: c.email, password: c.password, name: 'Ada' });
    must(r.accessToken && r.refreshToken, 'tokens in the answer');
    return r.user.email;
  });
  await step('auth.login', async () => {
    const r = await client.auth.login({ email: c.email, password: c.password });
    must(r.accessToken, 'an access token');
    return r.user.email;
  });
  await step('auth.me', async () => (await client.auth.me()).email);
  await step('auth.updateProfile', async () => {
    await client.auth.updateProfile({ name: 'Ada L.' });
    return (await client.auth.me()).name;
  });
  await step('auth.refreshToken', async () => {
    const before = client.auth.getRefreshToken();
    const r = await client.auth.refreshToken();
    must(r.refreshToken && r.refreshToken !== before, 'a rotated refresh token');
    return 'rotated';
  });
  await step('db.insert', async () => {
    doc = await client.db.insert(c.collection, { text: 'from the SDK' });
    must(doc._id, 'an id');
    return doc.text;
  });
  await step('db.getAll', async () => (await client.db.getAll(c.collection)).map((d) => d.text).join(','));
  await step('db.getOne', async () => (await client.db.getOne(c.collection, doc._id)).text);
  await step('db.count', async () => client.db.count(c.collection));
  await step('db.update', async () => (await client.db.update(c.collection, doc._id, { text: 'put' })).text);
  await step('db.patch', async () => (await client.db.patch(c.collection, doc._id, { text: 'patched' })).text);
  await step('schema.getSchema', async () => (await client.schema.getSchema(c.collection)).name);
  await step('storage.upload', async () => {
    upload = await client.storage.upload(new Blob(['hello from the SDK'], { type: 'text/plain' }), 'hello.txt');
    must(upload.path || upload.filePath, 'a path');
    return upload.size;
  });
  await step('storage.deleteFile', async () => {
    const r = await client.storage.deleteFile(upload.path || upload.filePath);
    return JSON.stringify(r);
  });
  await step('db.delete', async () => (await client.db.delete(c.collection, doc._id)).deleted);
  await step('auth.changePassword', async () => {
    await client.auth.changePassword({ currentPassword: c.password, newPassword: c.newPassword });
    return 'changed';
  });
  await step('auth.logout', async () => {
    must(client.auth.getToken(), 'a session to end');
    const warned = [];
    const warn = console.warn;
    console.warn = (...args) => warned.push(args.map(String).join(' '));
    try {
      await client.auth.logout();
    } finally {
      console.warn = warn;
    }
    // The SDK swallows a failed server logout and only warns.
    must(warned.length === 0, warned.join(' '));
    return 'logged out';
  });
  return results;
};
`;

let bundled: Promise<string> | undefined;

/** The SDK as one script exposing `window.UrBackend` (its module's exports), built once per run. */
export function sdkBundle(): Promise<string> {
  bundled ??= build({
    stdin: {
      contents: "export * from '@urbackend/sdk'; export { default } from '@urbackend/sdk';",
      resolveDir: '.',
    },
    bundle: true,
    format: 'iife',
    globalName: 'UrBackend',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.text);
  return bundled;
}

export interface SdkPage {
  origin: string;
  close(): void;
}

/** Serves the app's page (the bundle and the runner) on 127.0.0.1 and an ephemeral port. */
export async function serveSdkPage(): Promise<SdkPage> {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>SDK app</title></head><body>
<script>${await sdkBundle()}</script><script>${RUNNER}</script></body></html>`;
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

/** Runs the SDK's steps in `page` (already at the app's origin). */
export const runSdk = (page: Page, config: SdkRunConfig) =>
  page.evaluate(
    (c) => (window as unknown as { runSdk(c: SdkRunConfig): Promise<SdkStep[]> }).runSdk(c),
    config,
  );

/** `name: detail` of the steps that failed, to assert on and to read in a failure. */
export const failed = (steps: SdkStep[]) => steps.filter((s) => !s.ok).map((s) => `${s.name}: ${s.detail}`);
