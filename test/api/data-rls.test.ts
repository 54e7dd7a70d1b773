// The scenario table of the Authentication section and the PUT/PATCH rules, over HTTP:
// key x token x owner x RLS mode x operation -> status, body fragment, side effect.
import { expect } from 'chai';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { createProjectFixture, userToken } from '../helpers/fixtures.js';
import { rls, startDataSuite, USER_A, USER_B, type DataSuite } from './data-helpers.js';

type Mode = 'off' | 'public-read' | 'private';
type CallerName =
  'none' | 'secret' | 'secret+A' | 'pk' | 'pk+A' | 'pk+B' | 'pk+bad' | 'pk+other-project' | 'pk?key=+A';
type Owner = 'A' | 'B';

interface Scenario {
  mode: Mode;
  caller: CallerName;
  op: string;
  /** Whose document the operation targets (writes and reads by id). */
  owner?: Owner;
  status: number;
  /** Expected to be included (deeply) in the response body. */
  body?: Record<string, unknown>;
  /** Checks of the response and of the stored state after the call. */
  then?: (res: ApiResponse, world: World) => unknown;
}

interface World {
  collection: string;
  docs: Record<Owner, string>;
  stored(id: string): Promise<Record<string, any> | null>;
}

const COLLECTIONS: Record<Mode, string> = {
  off: 'open_notes',
  'public-read': 'public_notes',
  private: 'private_notes',
};
const owners = (res: ApiResponse) => (res.body.data as any[]).map((d) => d.userId).sort();

describe('Data API: keys and row-level security (scenario table)', () => {
  let s: DataSuite;
  const clients = {} as Record<CallerName, ApiClient>;

  before(async () => {
    s = await startDataSuite('data_rls');
    const fields = [
      { name: 'text', type: 'String' as const },
      { name: 'userId', type: 'String' as const },
    ];
    await s.collection({ name: COLLECTIONS.off, mode: 'schema', fields });
    await s.collection({ name: COLLECTIONS['public-read'], mode: 'schema', fields, rls: rls('public-read') });
    await s.collection({ name: COLLECTIONS.private, mode: 'schema', fields, rls: rls('private') });
    const other = await createProjectFixture(s.app.services, 'Other project');
    const otherToken = await userToken(s.app.services, other.project.id, USER_A);
    const tokenA = await userToken(s.app.services, s.fx.project.id, USER_A);
    clients.none = s.app.client;
    clients.secret = s.secret;
    clients['secret+A'] = s.secret.with({ authorization: `Bearer ${tokenA}` });
    clients.pk = s.publishable;
    clients['pk+A'] = await s.asUser(USER_A);
    clients['pk+B'] = await s.asUser(USER_B);
    clients['pk+bad'] = s.publishable.with({ authorization: 'Bearer not.a.token' });
    clients['pk+other-project'] = s.publishable.with({ authorization: `Bearer ${otherToken}` });
    clients['pk?key=+A'] = s.app.client.with({ authorization: `Bearer ${tokenA}` });
  });
  after(() => s.close());

  const path = (world: World, suffix = '') => {
    const base = `/api/data/${world.collection}${suffix}`;
    return (caller: CallerName) =>
      caller === 'pk?key=+A' ? `${base}${base.includes('?') ? '&' : '?'}key=${s.fx.publishableKey}` : base;
  };

  const operations: Record<
    string,
    (c: ApiClient, caller: CallerName, w: World, owner: Owner) => Promise<ApiResponse>
  > = {
    list: (c, caller, w) => c.get(path(w)(caller)),
    count: (c, caller, w) => c.get(path(w)(caller), { query: { count: 'true' } }),
    get: (c, caller, w, owner) => c.get(path(w, `/${w.docs[owner]}`)(caller)),
    create: (c, caller, w) => c.post(path(w)(caller), { text: 'new' }),
    'create as A': (c, caller, w) => c.post(path(w)(caller), { text: 'new', userId: USER_A }),
    'create as B': (c, caller, w) => c.post(path(w)(caller), { text: 'new', userId: USER_B }),
    'bulk create': (c, caller, w) =>
      c.post(path(w, '/bulk')(caller), { documents: [{ text: 'one' }, { text: 'two' }] }),
    update: (c, caller, w, owner) => c.patch(path(w, `/${w.docs[owner]}`)(caller), { text: 'changed' }),
    'put update': (c, caller, w, owner) => c.put(path(w, `/${w.docs[owner]}`)(caller), { text: 'changed' }),
    'update owner to B': (c, caller, w, owner) =>
      c.patch(path(w, `/${w.docs[owner]}`)(caller), { userId: USER_B }),
    'update owner to same': (c, caller, w, owner) =>
      c.patch(path(w, `/${w.docs[owner]}`)(caller), {
        userId: owner === 'A' ? USER_A : USER_B,
        text: 'same owner',
      }),
    delete: (c, caller, w, owner) => c.delete(path(w, `/${w.docs[owner]}`)(caller)),
    restore: async (c, caller, w, owner) => {
      await s.secret.delete(`/api/data/${w.collection}/${w.docs[owner]}`);
      return c.post(path(w, `/${w.docs[owner]}/restore`)(caller));
    },
    aggregate: (c, caller, w) =>
      c.post(path(w, '/aggregate')(caller), { pipeline: [{ $sort: { userId: 1 } }] }),
  };

  const unchanged = async (_res: ApiResponse, w: World) => {
    for (const owner of ['A', 'B'] as const) {
      const doc = await w.stored(w.docs[owner]);
      expect(doc, `document of ${owner}`).to.include({
        text: `by ${owner}`,
        userId: owner === 'A' ? USER_A : USER_B,
      });
      expect(doc!.isDeleted).to.equal(false);
    }
  };
  const createdBy = (userId: string | undefined) => async (res: ApiResponse, w: World) => {
    expect(res.body.data.userId).to.equal(userId);
    const doc = await w.stored(res.body.data._id);
    expect(doc!.userId).to.equal(userId);
  };
  const changed = (owner: Owner) => async (res: ApiResponse, w: World) => {
    expect(res.body.data._id).to.equal(w.docs[owner]);
    expect((await w.stored(w.docs[owner]))!.text).to.equal('changed');
  };
  const trashed = (owner: Owner) => async (_res: ApiResponse, w: World) => {
    expect((await w.stored(w.docs[owner]))!.isDeleted).to.equal(true);
  };
  const seesOwners =
    (...expected: string[]) =>
    (res: ApiResponse) =>
      expect(owners(res)).to.deep.equal(expected);
  const nothingCreated = async (_res: ApiResponse, w: World) => {
    const count = await s.app.deps.db
      .project(s.fx.project.id)
      .collection(w.collection)
      .countDocuments({ text: { $in: ['new', 'one', 'two'] } });
    expect(count).to.equal(0);
  };

  const forbiddenPk = { code: 'PUBLISHABLE_KEY_READ_ONLY' };
  const missingToken = { code: 'MISSING_TOKEN' };
  const mismatch = { code: 'OWNER_MISMATCH' };
  const immutable = { code: 'OWNER_IMMUTABLE', message: 'Owner field immutable' };

  const scenarios: Scenario[] = [
    // Keys in general
    { mode: 'off', caller: 'none', op: 'list', status: 401 },
    { mode: 'off', caller: 'pk+bad', op: 'list', status: 401, body: { code: 'INVALID_TOKEN' } },
    { mode: 'off', caller: 'pk+other-project', op: 'list', status: 401, body: { code: 'INVALID_TOKEN' } },
    // RLS disabled: the publishable key reads, only the secret key writes
    { mode: 'off', caller: 'pk', op: 'list', status: 200, then: seesOwners(USER_A, USER_B) },
    { mode: 'off', caller: 'pk', op: 'get', owner: 'B', status: 200 },
    { mode: 'off', caller: 'pk', op: 'aggregate', status: 200, then: seesOwners(USER_A, USER_B) },
    { mode: 'off', caller: 'pk', op: 'create', status: 403, body: forbiddenPk, then: nothingCreated },
    { mode: 'off', caller: 'pk+A', op: 'create', status: 403, body: forbiddenPk, then: nothingCreated },
    { mode: 'off', caller: 'pk+A', op: 'bulk create', status: 403, body: forbiddenPk, then: nothingCreated },
    {
      mode: 'off',
      caller: 'pk+A',
      op: 'update',
      owner: 'A',
      status: 403,
      body: forbiddenPk,
      then: unchanged,
    },
    {
      mode: 'off',
      caller: 'pk+A',
      op: 'delete',
      owner: 'A',
      status: 403,
      body: forbiddenPk,
      then: unchanged,
    },
    { mode: 'off', caller: 'secret', op: 'create', status: 201, then: createdBy(undefined) },
    {
      mode: 'off',
      caller: 'secret',
      op: 'update',
      owner: 'A',
      status: 200,
      body: { message: 'Updated' },
      then: changed('A'),
    },
    { mode: 'off', caller: 'secret', op: 'update owner to B', owner: 'A', status: 200 },
    { mode: 'off', caller: 'secret', op: 'delete', owner: 'B', status: 200, then: trashed('B') },
    // Public-read RLS: anyone with the key reads; writes need a token and ownership
    { mode: 'public-read', caller: 'pk', op: 'list', status: 200, then: seesOwners(USER_A, USER_B) },
    { mode: 'public-read', caller: 'pk', op: 'get', owner: 'B', status: 200 },
    { mode: 'public-read', caller: 'pk', op: 'count', status: 200, body: { data: { count: 2 } } },
    {
      mode: 'public-read',
      caller: 'pk',
      op: 'create',
      status: 401,
      body: missingToken,
      then: nothingCreated,
    },
    {
      mode: 'public-read',
      caller: 'pk',
      op: 'update',
      owner: 'A',
      status: 401,
      body: missingToken,
      then: unchanged,
    },
    {
      mode: 'public-read',
      caller: 'pk',
      op: 'delete',
      owner: 'A',
      status: 401,
      body: missingToken,
      then: unchanged,
    },
    { mode: 'public-read', caller: 'pk+A', op: 'create', status: 201, then: createdBy(USER_A) },
    { mode: 'public-read', caller: 'pk?key=+A', op: 'create', status: 201, then: createdBy(USER_A) },
    { mode: 'public-read', caller: 'pk+A', op: 'create as A', status: 201, then: createdBy(USER_A) },
    {
      mode: 'public-read',
      caller: 'pk+A',
      op: 'create as B',
      status: 403,
      body: mismatch,
      then: nothingCreated,
    },
    {
      mode: 'public-read',
      caller: 'pk+A',
      op: 'bulk create',
      status: 201,
      then: (res) => expect(owners(res)).to.deep.equal([USER_A, USER_A]),
    },
    { mode: 'public-read', caller: 'secret', op: 'create as B', status: 201, then: createdBy(USER_B) },
    { mode: 'public-read', caller: 'secret', op: 'create', status: 201, then: createdBy(undefined) },
    { mode: 'public-read', caller: 'pk+A', op: 'update', owner: 'A', status: 200, then: changed('A') },
    { mode: 'public-read', caller: 'pk+A', op: 'put update', owner: 'A', status: 200, then: changed('A') },
    {
      mode: 'public-read',
      caller: 'pk+B',
      op: 'update',
      owner: 'A',
      status: 403,
      body: mismatch,
      then: unchanged,
    },
    {
      mode: 'public-read',
      caller: 'pk+B',
      op: 'put update',
      owner: 'A',
      status: 403,
      body: mismatch,
      then: unchanged,
    },
    {
      mode: 'public-read',
      caller: 'pk+A',
      op: 'update owner to B',
      owner: 'A',
      status: 403,
      body: immutable,
      then: unchanged,
    },
    { mode: 'public-read', caller: 'pk+A', op: 'update owner to same', owner: 'A', status: 200 },
    { mode: 'public-read', caller: 'secret', op: 'update', owner: 'B', status: 200, then: changed('B') },
    {
      mode: 'public-read',
      caller: 'secret',
      op: 'update owner to B',
      owner: 'A',
      status: 403,
      body: immutable,
      then: unchanged,
    },
    { mode: 'public-read', caller: 'secret+A', op: 'update', owner: 'B', status: 200, then: changed('B') },
    {
      mode: 'public-read',
      caller: 'pk+B',
      op: 'delete',
      owner: 'A',
      status: 403,
      body: mismatch,
      then: unchanged,
    },
    { mode: 'public-read', caller: 'pk+A', op: 'delete', owner: 'A', status: 200, then: trashed('A') },
    {
      mode: 'public-read',
      caller: 'pk+B',
      op: 'restore',
      owner: 'A',
      status: 403,
      body: mismatch,
      then: trashed('A'),
    },
    {
      mode: 'public-read',
      caller: 'pk+A',
      op: 'restore',
      owner: 'A',
      status: 200,
      body: { message: 'Restored' },
      then: unchanged,
    },
    {
      mode: 'public-read',
      caller: 'pk',
      op: 'restore',
      owner: 'A',
      status: 401,
      body: missingToken,
      then: trashed('A'),
    },
    { mode: 'public-read', caller: 'pk', op: 'aggregate', status: 401, body: missingToken },
    { mode: 'public-read', caller: 'pk+A', op: 'aggregate', status: 200, then: seesOwners(USER_A) },
    { mode: 'public-read', caller: 'secret', op: 'aggregate', status: 200, then: seesOwners(USER_A, USER_B) },
    // Private RLS: reads too are the owner's, and need a token
    { mode: 'private', caller: 'pk', op: 'list', status: 401, body: missingToken },
    { mode: 'private', caller: 'pk', op: 'get', owner: 'A', status: 401, body: missingToken },
    { mode: 'private', caller: 'pk', op: 'count', status: 401, body: missingToken },
    { mode: 'private', caller: 'pk+A', op: 'list', status: 200, then: seesOwners(USER_A) },
    { mode: 'private', caller: 'pk?key=+A', op: 'list', status: 200, then: seesOwners(USER_A) },
    { mode: 'private', caller: 'pk+A', op: 'count', status: 200, body: { data: { count: 1 } } },
    { mode: 'private', caller: 'pk+A', op: 'get', owner: 'A', status: 200 },
    {
      mode: 'private',
      caller: 'pk+A',
      op: 'get',
      owner: 'B',
      status: 404,
      body: { code: 'DOCUMENT_NOT_FOUND' },
    },
    { mode: 'private', caller: 'secret', op: 'list', status: 200, then: seesOwners(USER_A, USER_B) },
    { mode: 'private', caller: 'secret', op: 'get', owner: 'B', status: 200 },
    { mode: 'private', caller: 'pk+A', op: 'create', status: 201, then: createdBy(USER_A) },
    { mode: 'private', caller: 'pk+A', op: 'create as B', status: 403, body: mismatch, then: nothingCreated },
    { mode: 'private', caller: 'pk+A', op: 'update', owner: 'A', status: 200, then: changed('A') },
    {
      mode: 'private',
      caller: 'pk+A',
      op: 'update',
      owner: 'B',
      status: 403,
      body: mismatch,
      then: unchanged,
    },
    {
      mode: 'private',
      caller: 'pk+A',
      op: 'update owner to B',
      owner: 'A',
      status: 403,
      body: immutable,
      then: unchanged,
    },
    {
      mode: 'private',
      caller: 'pk+A',
      op: 'delete',
      owner: 'B',
      status: 403,
      body: mismatch,
      then: unchanged,
    },
    { mode: 'private', caller: 'pk+A', op: 'delete', owner: 'A', status: 200, then: trashed('A') },
    { mode: 'private', caller: 'pk+A', op: 'aggregate', status: 200, then: seesOwners(USER_A) },
    { mode: 'private', caller: 'pk+B', op: 'aggregate', status: 200, then: seesOwners(USER_B) },
  ];

  let round = 0;
  for (const sc of scenarios) {
    const who = sc.owner ? ` on ${sc.owner}'s document` : '';
    it(`${sc.mode} | ${sc.caller} | ${sc.op}${who} -> ${sc.status}`, async () => {
      // A collection per scenario, so that every row starts from the same two documents.
      const base = COLLECTIONS[sc.mode];
      const def = (await s.app.services.repos.collections.findByName(s.fx.project.id, base))!;
      const collection = `${base}_${round++}`;
      await s.collection({ name: collection, mode: def.mode, fields: def.fields, rls: def.rls });
      const docs = {} as Record<Owner, string>;
      for (const owner of ['A', 'B'] as const) {
        const res = await s.secret.post(`/api/data/${collection}`, {
          text: `by ${owner}`,
          userId: owner === 'A' ? USER_A : USER_B,
        });
        docs[owner] = res.body.data._id;
      }
      const db = s.app.deps.db.project(s.fx.project.id).collection(collection);
      const { ObjectId } = await import('mongodb');
      const world: World = { collection, docs, stored: (id) => db.findOne({ _id: new ObjectId(id) }) };

      const res = await operations[sc.op]!(clients[sc.caller], sc.caller, world, sc.owner ?? 'A');
      expect(res.status, res.text).to.equal(sc.status);
      expect(res.body.success).to.equal(sc.status < 400);
      if (sc.body) expect(res.body).to.deep.include(sc.body);
      await sc.then?.(res, world);
    });
  }
});
