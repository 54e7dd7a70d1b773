// The published declarations for hosted code (/types/functions.d.ts): the dashboard serves the
// file as text, and a developer's TypeScript function type-checks against what it downloaded
// (strict tsc), while answers a trigger may not give, unknown ctx calls and fields an event does
// not carry are refused by the compiler.
import { readFile, writeFile } from 'node:fs/promises';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { typeCheck, typedClientWorkspace, type TypedClientWorkspace } from '../helpers/typed-client.js';
import { repoPath } from '../../src/lib/paths.js';

const GOOD = `import type {
  BeforeCreateEvent,
  BeforeDeleteEvent,
  BeforeSignUpEvent,
  BeforeUpdateEvent,
  CallableEvent,
  Handler,
  ScheduleEvent,
  TokenClaimsEvent,
} from './functions.js';

export const stamp: Handler<BeforeCreateEvent> = async (event, ctx) => {
  ctx.log('creating', event.documents.length, event.caller.key, event.caller.userId);
  const res = await ctx.fetch('https://api.example.com/check', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + (ctx.env.API_TOKEN ?? '') },
    body: JSON.stringify(event.documents),
  });
  if (!res.ok) return { refuse: { status: 400, code: 'CHECK_FAILED', message: res.text() } };
  const same = await ctx.db.count(event.collection, { title: String(event.documents[0]?.title) });
  if (same > 0) return { refuse: { status: 403, code: 'DUPLICATE', message: 'A post has this title' } };
  const latest = await ctx.db.list<{ title: string }>('posts', { limit: '1', sort: '-createdAt' });
  const made = await ctx.db.create<{ _id: string }>('audit', { count: event.documents.length });
  const gone = await ctx.db.delete('audit', made._id);
  return {
    documents: event.documents.map((d) => ({ ...d, after: latest[0]?.title ?? null, audit: gone.deletedAt })),
  };
};

export const edit: Handler<BeforeUpdateEvent> = async (event) =>
  event.operation === 'update' ? { changes: { ...event.changes, editedBy: event.caller.userId } } : null;

export const guard: Handler<BeforeDeleteEvent> = (event) =>
  event.test || event.documentIds.length <= 10
    ? null
    : { refuse: { status: 403, code: 'TOO_MANY', message: 'At most ten at once' } };

export const signUp: Handler<BeforeSignUpEvent> = async (event) =>
  event.email.endsWith('@example.com') || event.provider === 'github'
    ? { fields: { ...event.fields, team: 'example' } }
    : null;

export const claims: Handler<TokenClaimsEvent> = async (event, ctx) => {
  const [member] = await ctx.db.list<{ role: string }>('members', { userId: event.userId });
  return { claims: { role: member?.role ?? 'guest', refreshed: event.reason === 'refresh' } };
};

export const hello: Handler<CallableEvent> = async (event) => ({ hello: event.name, got: event.body });

export const nightly: Handler<ScheduleEvent> = async (event, ctx) => {
  console.info('run of', event.scheduledAt);
  await ctx.db.create('runs', { at: event.scheduledAt });
};
`;

// Each line is one mistake the types must catch.
const BAD = `import type { BeforeCreateEvent, BeforeDeleteEvent, BeforeUpdateEvent, Handler, ScheduleEvent, TokenClaimsEvent } from './functions.js';
export const a: Handler<BeforeDeleteEvent> = async () => ({ document: { title: 'a delete cannot change' } });
export const b: Handler<BeforeCreateEvent> = async (event, ctx) => { await ctx.db.drop(event.collection); return null; };
export const c: Handler<BeforeUpdateEvent> = async (event) => ({ changes: { id: event.documentId } });
export const d: Handler<BeforeCreateEvent> = async () => ({ refuse: { status: 500, code: 'X', message: 'm' } });
export const e: Handler<BeforeCreateEvent> = async (event, ctx) => { ctx.env.TOKEN = 'x'; return null; };
export const f: Handler<ScheduleEvent> = async (event) => { console.log(event.caller.userId); };
export const g: Handler<TokenClaimsEvent> = async () => ({ fields: { role: 'claims, not fields' } });
`;

describe('published types for hosted functions', function () {
  this.timeout(120_000);
  let app: TestApp;
  let workspace: TypedClientWorkspace;
  let served = '';

  before(async () => {
    app = await startTestApp('dashboard', 'web_function_types');
    workspace = typedClientWorkspace('function-types');
  });
  after(async () => {
    workspace?.remove();
    await app?.close();
  });

  it('the dashboard serves /types/functions.d.ts as text, the file as published', async () => {
    const res = await fetch(`${app.url}/types/functions.d.ts`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    served = await res.text();
    expect(served).to.equal(await readFile(repoPath('web', 'public', 'types', 'functions.d.ts'), 'utf8'));
    expect(served).to.include('export interface Ctx').and.include('export type Handler');
  });

  it('a strict TypeScript function type-checks against the served file', async () => {
    // As a .ts file, so tsc checks the declarations themselves too (skipLibCheck skips a .d.ts).
    await writeFile(workspace.file('functions.ts'), served);
    await writeFile(workspace.file('good.ts'), GOOD);
    const result = await typeCheck(workspace, ['functions.ts', 'good.ts']);
    expect(result.output).to.equal('');
    expect(result.ok).to.equal(true);
  });

  it('refuses answers a trigger may not give, unknown ctx calls and missing event fields', async () => {
    await writeFile(workspace.file('bad.ts'), BAD);
    const result = await typeCheck(workspace, ['functions.ts', 'bad.ts']);
    expect(result.ok).to.equal(false);
    const lines = new Set([...result.output.matchAll(/bad\.ts\((\d+),/g)].map((m) => Number(m[1])));
    expect(
      [...lines].sort((x, y) => x - y),
      result.output,
    ).to.deep.equal([2, 3, 4, 5, 6, 7, 8]);
  });
});
