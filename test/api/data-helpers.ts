// Shared setup of the data API suites: a public app on the real stack, a project with its keys,
// collections registered through the services, and small request helpers.
import { expect } from 'chai';
import type { ApiClient } from '../helpers/client.js';
import type { ServiceEvent } from '../../src/services/events.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  createCollectionFixture,
  createProjectFixture,
  POST_FIELDS,
  userToken,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { CollectionInput } from '../../src/db/collections.js';
import { uniqueIndexSpec } from '../../src/db/project-indexes.js';
import type { CollectionDef, RlsSettings } from '../../src/services/types.js';

export interface DataSuite {
  app: TestApp;
  fx: ProjectFixture;
  /** Client with the secret key. */
  secret: ApiClient;
  /** Client with the publishable key. */
  publishable: ApiClient;
  /** Client with the publishable key and a Bearer token of `userId`. */
  asUser(userId: string): Promise<ApiClient>;
  collection(input: Partial<CollectionInput> & { name: string }): Promise<CollectionDef>;
  /** A unique index `u_<field>` as the collections service makes it (trashed documents left out). */
  uniqueIndex(collection: string, field: string): Promise<void>;
  close(): Promise<void>;
}

export const rls = (mode: RlsSettings['mode'], ownerField = 'userId'): RlsSettings => ({
  enabled: true,
  mode,
  ownerField,
});

export async function startDataSuite(
  name: string,
  overrides: Record<string, string> = {},
): Promise<DataSuite> {
  // Every request of a data suite comes from one address: the per-client share of the
  // publishable budget (20 % by default, docs/rate-limits.md) is the rate-limit suites' to test.
  const app = await startTestApp('public', name, { RATE_LIMIT_CLIENT_SHARE_PERCENT: '100', ...overrides });
  const fx = await createProjectFixture(app.services);
  return {
    app,
    fx,
    secret: app.client.with({ 'x-api-key': fx.secretKey }),
    publishable: app.client.with({ 'x-api-key': fx.publishableKey }),
    async asUser(userId) {
      const token = await userToken(app.services, fx.project.id, userId);
      return app.client.with({ 'x-api-key': fx.publishableKey, authorization: `Bearer ${token}` });
    },
    collection: (input) => createCollectionFixture(app.services, fx.project.id, input),
    async uniqueIndex(collection, field) {
      const { key, ...options } = uniqueIndexSpec(field);
      await app.deps.db.project(fx.project.id).collection(collection).createIndex(key, options);
    },
    async close() {
      await app.deps.db
        .project(fx.project.id)
        .dropDatabase()
        .catch(() => undefined);
      await app.close();
    },
  };
}

/** Distinct hex object ids for end users. */
export const USER_A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
export const USER_B = 'bbbbbbbbbbbbbbbbbbbbbbbb';

/**
 * The documents suites: a schema collection `posts` (unique `slug`), a flexible `notes`, events.
 * Call it inside `describe`: it registers the suite's `before` and `after` hooks. `s` is filled in
 * and `events` starts collecting in `before`, so all four can be destructured right away.
 */
export function useDocumentsSuite(name: string) {
  const s = {} as DataSuite;
  const events: ServiceEvent[] = [];
  before(async () => {
    Object.assign(s, await startDataSuite(name));
    s.app.services.events.on((event) => {
      events.push(event);
    });
    await s.collection({
      name: 'posts',
      mode: 'schema',
      fields: [
        ...POST_FIELDS,
        { name: 'published', type: 'Boolean', default: false },
        { name: 'publishedAt', type: 'Date' },
        { name: 'authorId', type: 'Ref', ref: 'authors' },
        { name: 'tags', type: 'Array', items: { type: 'String' } },
        {
          name: 'meta',
          type: 'Object',
          fields: [
            { name: 'views', type: 'Number' },
            { name: 'lang', type: 'String' },
          ],
        },
      ],
    });
    await s.uniqueIndex('posts', 'slug');
    await s.collection({ name: 'notes', mode: 'flexible', fields: [{ name: 'text', type: 'String' }] });
  });
  after(() => s.close());
  return {
    s,
    events,
    /** Creates a post with the secret key (201 expected) and returns it. */
    async create(body: Record<string, unknown>) {
      const res = await s.secret.post('/api/data/posts', body);
      expect(res.status, res.text).to.equal(201);
      return res.body.data;
    },
    /** The project's `databaseUsed` counter. */
    usage: async () => (await s.app.services.repos.projects.findById(s.fx.project.id))!.usage.databaseUsed,
    /** The stored BSON size of one document, read raw from the database. */
    async storedSize(collection: string, id: string) {
      const { ObjectId } = await import('mongodb');
      const raw = await s.app.deps.db
        .project(s.fx.project.id)
        .collection(collection)
        .find({ _id: new ObjectId(id) }, { raw: true })
        .toArray();
      return (raw[0] as unknown as Uint8Array).length;
    },
  };
}

export const OBJECT_ID = /^[0-9a-f]{24}$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const MISSING_ID = '0123456789abcdef01234567';
