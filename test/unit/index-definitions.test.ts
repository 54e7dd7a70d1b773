import { expect } from 'chai';
import { ApiError } from '../../src/http/errors.js';
import {
  checkCollectionIndexes,
  checkIndexInput,
  collectionIndexes,
  defaultIndexName,
} from '../../src/services/schema/index-definitions.js';
import type { CollectionDef } from '../../src/services/types.js';

const def = (overrides: Partial<CollectionDef> = {}): CollectionDef => ({
  id: '0'.repeat(24),
  projectId: '1'.repeat(24),
  name: 'posts',
  mode: 'schema',
  fields: [
    { name: 'title', type: 'String' },
    { name: 'slug', type: 'String', unique: true },
    { name: 'at', type: 'Date' },
    { name: 'owner', type: 'String' },
    { name: 'meta', type: 'Object', fields: [{ name: 'views', type: 'Number' }] },
  ],
  rls: { enabled: true, mode: 'private', ownerField: 'owner' },
  createdAt: new Date(),
  updatedAt: new Date(),
  ...overrides,
});

const refused = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

describe('declared index definitions', () => {
  it('names an index as MongoDB does and defaults the direction to ascending', () => {
    const index = checkIndexInput(def(), {
      keys: [{ field: 'meta.views', direction: -1 }, { field: 'title' }],
    });
    expect(index).to.deep.equal({
      name: 'meta.views_-1_title_1',
      keys: [
        { field: 'meta.views', direction: -1 },
        { field: 'title', direction: 1 },
      ],
      unique: false,
    });
    expect(defaultIndexName(index.keys)).to.equal(index.name);
  });

  it('refuses unknown fields in schema mode, repeated keys, _id first, bad directions and names', () => {
    expect(refused(() => checkIndexInput(def(), { keys: [{ field: 'nope' }] })).code).to.equal(
      'UNKNOWN_FIELD',
    );
    expect(checkIndexInput(def({ mode: 'flexible' }), { keys: [{ field: 'nope' }] }).name).to.equal('nope_1');
    expect(
      refused(() => checkIndexInput(def(), { keys: [{ field: 'title' }, { field: 'title' }] })).message,
    ).to.include('appears twice');
    expect(refused(() => checkIndexInput(def(), { keys: [{ field: '_id' }] })).message).to.include('_id');
    expect(checkIndexInput(def(), { keys: [{ field: 'title' }, { field: '_id' }] }).keys).to.have.length(2);
    expect(
      refused(() => checkIndexInput(def(), { keys: [{ field: 'title', direction: 2 }] })).status,
    ).to.equal(400);
    expect(
      refused(() => checkIndexInput(def(), { keys: [{ field: 'title' }], name: 'a b' })).status,
    ).to.equal(400);
    expect(refused(() => checkIndexInput(def(), { keys: [{ field: 'isDeleted' }] })).status).to.equal(400);
    expect(refused(() => checkIndexInput(def(), { keys: [] })).status).to.equal(400);
  });

  it('takes a TTL on one Date field only, never unique, never on users', () => {
    expect(
      checkIndexInput(def(), { keys: [{ field: 'at' }], expireAfterSeconds: 60 }).expireAfterSeconds,
    ).to.equal(60);
    expect(
      checkIndexInput(def(), { keys: [{ field: 'createdAt' }], expireAfterSeconds: 0 }).expireAfterSeconds,
    ).to.equal(0);
    expect(
      refused(() => checkIndexInput(def(), { keys: [{ field: 'title' }], expireAfterSeconds: 60 })).code,
    ).to.equal('NOT_A_DATE_FIELD');
    expect(
      refused(() =>
        checkIndexInput(def(), { keys: [{ field: 'at' }, { field: 'title' }], expireAfterSeconds: 1 }),
      ).status,
    ).to.equal(400);
    expect(
      refused(() => checkIndexInput(def(), { keys: [{ field: 'at' }], unique: true, expireAfterSeconds: 1 }))
        .status,
    ).to.equal(400);
    expect(
      refused(() => checkIndexInput(def(), { keys: [{ field: 'at' }], expireAfterSeconds: -1 })).status,
    ).to.equal(400);
    expect(
      refused(() =>
        checkIndexInput(def({ name: 'users' }), { keys: [{ field: 'at' }], expireAfterSeconds: 1 }),
      ).status,
    ).to.equal(400);
  });

  it('lists the implied indexes before the declared ones', () => {
    const listed = collectionIndexes(
      def({
        indexes: [
          { name: 'by_at', keys: [{ field: 'at', direction: -1 }], unique: false, createdAt: new Date() },
        ],
      }),
    );
    expect(listed.map((i) => [i.name, i.source])).to.deep.equal([
      ['u_slug', 'unique-field'],
      ['o_owner', 'owner-field'],
      ['by_at', 'declared'],
    ]);
  });

  it("checks a new collection's indexes: paths under indexes[i], no twins, the limit", () => {
    const err = refused(() => checkCollectionIndexes(def(), [{ keys: [{ field: 'nope' }] }], 5));
    expect(err.details?.[0]?.path).to.equal('indexes[0].keys[0].field');
    expect(
      refused(() => checkCollectionIndexes(def(), [{ keys: [{ field: 'slug' }] }], 5)).message,
    ).to.include('u_slug');
    expect(
      refused(() =>
        checkCollectionIndexes(
          def(),
          [{ keys: [{ field: 'title' }] }, { keys: [{ field: 'title' }], name: 'b' }],
          5,
        ),
      ).status,
    ).to.equal(400);
    expect(refused(() => checkCollectionIndexes(def(), [{ keys: [{ field: 'title' }] }], 0)).code).to.equal(
      'PLAN_LIMIT',
    );
    expect(checkCollectionIndexes(def(), undefined, 5)).to.equal(undefined);
  });
});
