// The first-party SDK (sdk/, `mongobaas-js`) as an app meets it in Node, over HTTP on the test
// stack: sign-up and the session's events, a typed list with filters, sort and cursor paging,
// errors with the field named, one refresh however many requests found the token expired, a
// reused refresh token surfaced as signed-out, realtime resumed after a dropped connection
// without losing events, an upload read back, a callable function, and 429s retried only when
// asked.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { repoPath } from '../../src/lib/paths.js';
import { generateClientTypes, typeCheck, typedClientWorkspace } from '../helpers/typed-client.js';
import { createClient, memoryStore, MongobaasError, type ChangeEvent } from '../../sdk/src/index.js';
import type { TestApp } from '../helpers/app.js';
import { startSdkApp, type SdkApp } from '../helpers/sdk-app.js';
import type { AuthProject } from '../helpers/user-auth.js';
import { authorizeAtProvider, startOAuthProviders } from '../helpers/oauth.js';

const SITE = 'https://app.example';

interface Todo {
  _id: string;
  title: string;
  done: boolean;
  priority: number;
  userId: string;
  createdAt: string;
}
type Schemas = {
  todos: Todo;
  'todos.Create': Partial<Todo> & { title: string };
  'todos.Update': Partial<Todo>;
};

/** A fetch that counts the requests per path and can drop the open realtime streams. */
function countingFetch() {
  const calls = new Map<string, number>();
  const streams = new Set<AbortController>();
  const wrapped: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    calls.set(url.pathname, (calls.get(url.pathname) ?? 0) + 1);
    if (!url.pathname.startsWith('/api/realtime/')) return fetch(input, init);
    const drop = new AbortController();
    init?.signal?.addEventListener('abort', () => drop.abort());
    streams.add(drop);
    return fetch(input, { ...init, signal: drop.signal });
  };
  return {
    fetch: wrapped,
    count: (pathname: string) => calls.get(pathname) ?? 0,
    dropStreams() {
      for (const stream of streams) stream.abort();
      streams.clear();
    },
  };
}

async function until<T>(what: string, check: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('SDK (mongobaas-js) in Node', function () {
  this.timeout(60_000);
  let app: TestApp;
  let p: AuthProject;
  let sdkApp: SdkApp;

  let providers: Awaited<ReturnType<typeof startOAuthProviders>>;

  before(async () => {
    providers = await startOAuthProviders();
    sdkApp = await startSdkApp(
      'sdk',
      {
        mode: 'schema',
        fields: [
          { name: 'title', type: 'String', required: true },
          { name: 'done', type: 'Boolean', default: false },
          { name: 'priority', type: 'Number' },
        ],
      },
      { env: providers.env, settings: { siteUrl: SITE } },
    );
    ({ app, p } = sdkApp);
  });
  after(async () => {
    await sdkApp?.close();
    await providers?.close();
  });

  const server = () => createClient<Schemas>(app.url, p.secretKey, { store: memoryStore() });
  const browserLike = (extra: { fetch?: typeof fetch } = {}) =>
    createClient<Schemas>(app.url, p.publishableKey, { store: memoryStore(), ...extra });

  it('signs an end user up, keeps the session and tells listeners', async () => {
    const client = browserLike();
    const events: string[] = [];
    client.auth.onAuthChange((event) => events.push(event));
    const session = await client.auth.signUp({ email: 'ada@example.com', password: 'correct horse battery' });
    expect(session.user.email).to.equal('ada@example.com');
    expect((await client.auth.getSession())?.refreshToken).to.match(/^rt_/);
    expect((await client.auth.getUser())._id).to.equal(session.user._id);
    await client.auth.signOut();
    expect(await client.auth.getSession()).to.equal(null);
    expect(events).to.deep.equal(['SIGNED_IN', 'USER_UPDATED', 'SIGNED_OUT']);
    await client.auth.signIn({ email: 'ada@example.com', password: 'correct horse battery' });
    expect(await client.auth.getSession()).to.not.equal(null);
  });

  it('lists with typed filters and sort, pages by cursor, counts', async () => {
    const admin = server();
    const created = await admin
      .collection('todos')
      .createMany([1, 2, 3, 4, 5].map((n) => ({ title: `t${n}`, priority: n, done: n % 2 === 0 })));
    expect(created).to.have.length(5);
    const todos = browserLike().collection('todos');
    const page = await todos.list({
      filter: { priority: { gte: 2 }, done: false },
      sort: '-priority',
      total: true,
    });
    expect(page.data.map((t) => t.title)).to.deep.equal(['t5', 't3']);
    expect(page.pagination.total).to.equal(2);
    const all: string[] = [];
    for await (const todo of todos.iterate({ sort: 'priority', limit: 2 })) all.push(todo.title);
    expect(all).to.deep.equal(['t1', 't2', 't3', 't4', 't5']);
    expect(await todos.count({ title: { in: ['t1', 't4', 'nope'] } })).to.equal(2);
    const one = await todos.get(created[0]!._id, { fields: ['title'] });
    expect(one.title).to.equal('t1');
  });

  it('throws one error class with status, code, field and request id', async () => {
    const err = await server()
      .collection('todos')
      .create({ title: 42 as unknown as string })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).to.be.instanceOf(MongobaasError);
    const error = err as MongobaasError;
    expect(error.status).to.equal(400);
    expect(error.field).to.equal('title');
    expect(error.requestId).to.be.a('string');
    const denied = await browserLike()
      .collection('todos')
      .create({ title: 'x' })
      .then(
        () => undefined,
        (e: unknown) => e as MongobaasError,
      );
    expect(denied?.status).to.equal(401);
    expect(denied?.code).to.equal('MISSING_TOKEN');
  });

  it('updates, trashes and restores as the signed-in owner', async () => {
    const client = browserLike();
    const { user } = await client.auth.signUp({
      email: 'owner@example.com',
      password: 'correct horse battery',
    });
    const todos = client.collection('todos');
    const todo = await todos.create({ title: 'mine' });
    expect(todo.userId).to.equal(user._id);
    expect((await todos.update(todo._id, { done: true })).done).to.equal(true);
    await todos.trash(todo._id);
    expect(await todos.count({ title: 'mine' })).to.equal(0);
    await todos.restore(todo._id);
    const bulk = await todos.trashMany([todo._id]);
    expect(bulk.results[0]?.status).to.equal('trashed');
  });

  it('signs in with a provider from another site, by PKCE (no cookie of the API needed)', async () => {
    providers.google.profile = { id: 'g-sdk', email: 'social@example.com', emailVerified: true };
    const client = browserLike();
    const start = new URL(await client.auth.socialSignInUrl('google', `${SITE}/auth/callback`));
    expect(start.searchParams.get('codeChallenge')).to.match(/^[\w-]{43}$/);
    // The browser's trip: start, the provider, the callback, back on the app's page with a code.
    const started = await fetch(start, { redirect: 'manual' });
    expect(started.status).to.equal(302);
    const back = await authorizeAtProvider(started.headers.get('location')!);
    const state = started.headers.get('set-cookie')!.split(';')[0]!;
    const done = await fetch(new URL(back.pathname + back.search, app.url), {
      redirect: 'manual',
      headers: { cookie: state },
    });
    const landing = new URL(done.headers.get('location')!);
    expect(landing.origin + landing.pathname).to.equal(`${SITE}/auth/callback`);
    const session = await client.auth.exchangeCode(landing.searchParams.get('code')!);
    expect(session.user.email).to.equal('social@example.com');
    expect((await client.auth.getUser()).email).to.equal('social@example.com');
  });

  it('makes one refresh call for 10 requests that found the access token expired', async () => {
    const counting = countingFetch();
    const client = browserLike({ fetch: counting.fetch });
    await client.auth.signUp({ email: 'expiring@example.com', password: 'correct horse battery' });
    const session = (await client.auth.getSession())!;
    // The service refuses this token as expired (401 TOKEN_EXPIRED); the client believes it valid.
    const expired = await app.services.tokens.issue(p.project.id, session.user._id, -30);
    const store = memoryStore();
    store.set(
      's',
      JSON.stringify({ ...session, accessToken: expired.accessToken, expiresAt: Date.now() + 600_000 }),
    );
    const stale = createClient<Schemas>(app.url, p.publishableKey, {
      store,
      storageKey: 's',
      fetch: counting.fetch,
    });
    const answers = await Promise.all(Array.from({ length: 10 }, () => stale.auth.getUser()));
    expect(answers.every((u) => u._id === session.user._id)).to.equal(true);
    expect(counting.count('/api/userAuth/refresh-token')).to.equal(1);
    // And ahead of expiry: a session about to expire is refreshed once before the requests go.
    const soon = (await stale.auth.getSession())!;
    store.set('t', JSON.stringify({ ...soon, expiresAt: Date.now() }));
    const early = createClient<Schemas>(app.url, p.publishableKey, {
      store,
      storageKey: 't',
      fetch: counting.fetch,
    });
    await Promise.all(Array.from({ length: 10 }, () => early.collection('todos').list({ limit: 1 })));
    expect(counting.count('/api/userAuth/refresh-token')).to.equal(2);
  });

  it('signs the user out when its refresh token was used by someone else (reuse detection)', async () => {
    const client = browserLike();
    await client.auth.signUp({ email: 'stolen@example.com', password: 'correct horse battery' });
    const { refreshToken } = (await client.auth.getSession())!;
    // A thief refreshes first: the family is rotated, the owner's token is now spent.
    const thief = await fetch(`${app.url}/api/userAuth/refresh-token`, {
      method: 'POST',
      headers: { 'x-api-key': p.publishableKey, 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken }),
    });
    expect(thief.status).to.equal(200);
    const events: string[] = [];
    client.auth.onAuthChange((event) => events.push(event));
    expect(await client.auth.refresh()).to.equal(null);
    expect(events).to.deep.equal(['SIGNED_OUT']);
    expect(await client.auth.getSession()).to.equal(null);
  });

  it('streams events, and resumes after a dropped connection without losing one', async () => {
    const counting = countingFetch();
    const client = browserLike({ fetch: counting.fetch });
    const events: ChangeEvent<Todo>[] = [];
    let ready = 0;
    const sub = client.subscribe('todos', {
      filter: { priority: { gte: 100 } },
      onEvent: (event) => events.push(event),
      onReady: () => ready++,
      backoffMs: 200,
    });
    try {
      await until('the stream', () => (ready ? true : undefined));
      const todos = server().collection('todos');
      await todos.create({ title: 'low', priority: 1 });
      await todos.create({ title: 'r1', priority: 100 });
      await until('r1', () => events.find((e) => e.document?.title === 'r1'));
      counting.dropStreams();
      // Written while the client is away: replayed from the last event id on reconnect.
      await todos.create({ title: 'r2', priority: 101 });
      await todos.create({ title: 'r3', priority: 102 });
      await until('r3', () => events.find((e) => e.document?.title === 'r3'));
      expect(events.map((e) => e.document?.title)).to.deep.equal(['r1', 'r2', 'r3']);
      expect(events.every((e) => e.type === 'document.created')).to.equal(true);
      expect(counting.count('/api/realtime/todos')).to.be.at.least(2);
    } finally {
      sub.close();
    }
  });

  it('uploads bytes with the presigned flow, serves them at the public URL and deletes them', async () => {
    const bytes = new TextEncoder().encode('hello from the sdk');
    const progress: number[] = [];
    const file = await server().storage.upload(bytes, {
      filename: 'hello.txt',
      contentType: 'text/plain',
      onProgress: (sent) => progress.push(sent),
    });
    expect(file.size).to.equal(bytes.byteLength);
    expect(progress.at(-1)).to.equal(bytes.byteLength);
    expect(await (await fetch(file.url!)).text()).to.equal('hello from the sdk');
    await server().storage.remove(file.path);
    expect((await fetch(file.url!)).status).to.equal(404);
  });

  it('calls a callable function', async () => {
    const admin = server();
    const created = await fetch(`${app.url}/api/functions`, {
      method: 'POST',
      headers: { 'x-api-key': p.secretKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'greet',
        trigger: { type: 'callable', access: 'public' },
        runtime: { type: 'javascript', code: 'export default async (event) => ({ hello: event.body.who })' },
      }),
    });
    expect(created.status, await created.clone().text()).to.equal(201);
    const client = createClient<Schemas, { greet: { hello: string } }>(app.url, p.publishableKey, {
      store: memoryStore(),
    });
    expect((await client.functions.call('greet', { who: 'sdk' })).hello).to.equal('sdk');
    const missing = await admin.functions.call('nope').then(
      () => undefined,
      (e: unknown) => e as MongobaasError,
    );
    expect(missing?.status).to.equal(404);
  });

  it('retries a 429 after its Retry-After only when asked', async () => {
    let refusals = 1;
    const flaky: typeof fetch = async (input, init) => {
      if (refusals-- > 0) {
        return new Response(
          JSON.stringify({ success: false, data: null, message: 'Slow down', code: 'RATE_LIMITED' }),
          {
            status: 429,
            headers: { 'retry-after': '1', 'content-type': 'application/json' },
          },
        );
      }
      return fetch(input, init);
    };
    const once = createClient<Schemas>(app.url, p.secretKey, { store: memoryStore(), fetch: flaky });
    const error = await once
      .collection('todos')
      .list()
      .then(
        () => undefined,
        (e: unknown) => e as MongobaasError,
      );
    expect(error?.status).to.equal(429);
    expect(error?.retryAfter).to.equal(1);
    refusals = 1;
    const patient = createClient<Schemas>(app.url, p.secretKey, {
      store: memoryStore(),
      fetch: flaky,
      retry: {},
    });
    const started = Date.now();
    expect((await patient.collection('todos').list({ limit: 1 })).data).to.have.length(1);
    expect(Date.now() - started).to.be.at.least(950);
  });

  it("types collections from the project's own document: a wrong field or value does not compile", async function () {
    this.timeout(120_000);
    const workspace = typedClientWorkspace('sdk-types');
    try {
      const doc = await fetch(`${app.url}/api/openapi.json`, { headers: { 'x-api-key': p.secretKey } });
      await generateClientTypes((await doc.json()) as Record<string, unknown>, workspace.file('project.ts'));
      // The SDK as a package delivers it: JavaScript with declarations.
      await promisify(execFile)(repoPath('node_modules', '.bin', 'tsc'), [
        '-p',
        repoPath('sdk', 'tsconfig.json'),
        '--outDir',
        workspace.file('sdk'),
      ]);
      writeFileSync(
        workspace.file('app.ts'),
        [
          "import { createClient } from './sdk/index.js';",
          "import type { components } from './project.js';",
          "const client = createClient<components['schemas']>('http://127.0.0.1:1', 'pk_live_x');",
          'export async function typed(): Promise<string> {',
          "  const { data } = await client.collection('todos').list({ filter: { priority: { gte: 2 }, done: false }, sort: '-priority' });",
          "  await client.collection('todos').create({ title: 'ok', priority: 1 });",
          '  // @ts-expect-error: no such collection',
          "  client.collection('todoz');",
          '  // @ts-expect-error: no such field',
          "  await client.collection('todos').list({ filter: { prio: 1 } });",
          '  // @ts-expect-error: priority is a number',
          "  await client.collection('todos').list({ filter: { priority: { gt: 'high' } } });",
          '  // @ts-expect-error: title is required',
          "  await client.collection('todos').create({ priority: 1 });",
          '  // @ts-expect-error: no such sort key',
          "  await client.collection('todos').list({ sort: '-prio' });",
          '  return data[0]?.title ?? "";',
          '}',
          'export async function untyped() {',
          "  const loose = createClient('http://127.0.0.1:1', 'pk_live_x');",
          "  return loose.collection('anything').list({ filter: { score: { gt: 1 } }, sort: '-score' });",
          '}',
        ].join('\n'),
      );
      const result = await typeCheck(workspace, ['app.ts']);
      expect(result.ok, result.output).to.equal(true);
    } finally {
      workspace.remove();
    }
  });
});
