// Pure logic of aggregation pipelines and writes: the stage checks, where the guards go, the
// guard of `$lookup` stages, the owner rules and the preview of a `$set` for the quota.
import { expect } from 'chai';
import { failure } from '../helpers/errors.js';
import { checkPipeline, guardLookup, withGuard } from '../../src/services/data/pipeline.js';
import { applySet } from '../../src/services/data/update-preview.js';
import { populateFields } from '../../src/services/data/populate.js';
import {
  applyOwner,
  assertMayChange,
  assertNoLookalikeOwner,
  readScope,
  writeOwner,
} from '../../src/services/data/access.js';
import type { CollectionDef, Project } from '../../src/services/types.js';

describe('data API pipelines', () => {
  it('puts the guard first, or right after a leading $geoNear', () => {
    const guard = { isDeleted: { $ne: true } };
    expect(withGuard([{ $limit: 1 }], guard)).to.deep.equal([{ $match: guard }, { $limit: 1 }]);
    const geo = { $geoNear: { near: [0, 0], distanceField: 'd' } };
    expect(withGuard([geo, { $limit: 1 }], guard)).to.deep.equal([geo, { $match: guard }, { $limit: 1 }]);
    expect(withGuard([], guard)).to.deep.equal([{ $match: guard }]);
    expect(withGuard([{ $limit: 1 }], undefined)).to.deep.equal([{ $limit: 1 }]);
  });

  it('collects every $lookup, nested ones too, and guards their own pipelines', () => {
    const pipeline = [
      { $lookup: { from: 'a', localField: 'x', foreignField: 'y', as: 'a' } },
      {
        $facet: {
          f: [
            {
              $lookup: { from: 'b', pipeline: [{ $lookup: { from: 'c', pipeline: [], as: 'c' } }], as: 'b' },
            },
          ],
        },
      },
    ];
    const lookups = checkPipeline(pipeline);
    expect(lookups.map((l) => l.from).sort()).to.deep.equal(['a', 'b', 'c']);
    guardLookup(
      lookups.find((l) => l.from === 'a')!,
      { owner: 'u' },
    );
    expect(pipeline[0]).to.deep.equal({
      $lookup: {
        from: 'a',
        localField: 'x',
        foreignField: 'y',
        as: 'a',
        pipeline: [{ $match: { owner: 'u' } }],
      },
    });
  });

  it('names the malformed part of a pipeline', () => {
    const message = (pipeline: unknown) => failure(() => checkPipeline(pipeline)).message;
    expect(message([{ $facet: [] }])).to.equal('Invalid pipeline: stage 0 $facet must be an object');
    expect(message([{ $facet: { a: {} } }])).to.equal('Invalid pipeline: stage 0 $facet.a must be an array');
    expect(message([{ $lookup: 'x' }])).to.equal('Invalid pipeline: stage 0 $lookup must be an object');
    let nested: unknown[] = [{ $match: {} }];
    for (let i = 0; i < 10; i++) nested = [{ $facet: { a: nested } }];
    expect(message(nested)).to.match(/^Invalid pipeline: sub-pipelines are nested too deeply/);
  });

  it('allows $set and $unset (real MongoDB), blocks writes and JavaScript', () => {
    expect(checkPipeline([{ $set: { a: 1 } }, { $unset: 'a' }])).to.deep.equal([]);
    expect(failure(() => checkPipeline([{ $merge: 'x' }])).code).to.equal('BLOCKED_STAGE');
    expect(failure(() => checkPipeline([{ $project: { a: { $function: {} } } }])).code).to.equal(
      'OPERATOR_NOT_ALLOWED',
    );
    expect(failure(() => checkPipeline('x')).status).to.equal(400);
  });
});

describe('data API owner rules', () => {
  const def = (enabled: boolean, mode: 'public-read' | 'private' = 'public-read'): CollectionDef => ({
    id: 'c',
    projectId: 'p',
    name: 'notes',
    mode: 'flexible',
    fields: [],
    rls: { enabled, mode, ownerField: 'userId' },
    createdAt: new Date(0),
    updatedAt: new Date(0),
  });
  const project = { id: 'p' } as Project;
  const target = (d: CollectionDef, keyKind: 'publishable' | 'secret', userId?: string) => ({
    def: d,
    caller: { project, keyKind, userId },
    ref: { projectId: 'p', collection: 'notes' },
  });

  it('decides who writes and who reads', () => {
    expect(writeOwner(target(def(false), 'secret'))).to.equal(undefined);
    expect(failure(() => writeOwner(target(def(false), 'publishable', 'u'))).status).to.equal(403);
    expect(failure(() => writeOwner(target(def(true), 'publishable'))).status).to.equal(401);
    expect(writeOwner(target(def(true), 'publishable', 'u'))).to.equal('u');
    expect(readScope(target(def(true), 'publishable'))).to.equal(undefined);
    expect(readScope(target(def(true, 'private'), 'publishable', 'u'))).to.deep.equal({
      userId: { $eq: 'u' },
    });
    expect(readScope(target(def(true, 'private'), 'secret'))).to.equal(undefined);
  });

  it('sets and checks the owner exactly', () => {
    const data: Record<string, unknown> = {};
    applyOwner(def(true), data, 'u');
    expect(data).to.deep.equal({ userId: 'u' });
    expect(failure(() => applyOwner(def(true), { userId: 'v' }, 'u')).code).to.equal('OWNER_MISMATCH');
    expect(failure(() => assertNoLookalikeOwner(def(true), ['USERID'])).code).to.equal(
      'OWNER_FIELD_LOOKALIKE',
    );
    assertNoLookalikeOwner(def(false), ['USERID']);
    expect(failure(() => assertMayChange(def(true), { userId: 'v' }, {}, 'u')).code).to.equal(
      'OWNER_MISMATCH',
    );
    expect(
      failure(() => assertMayChange(def(true), { userId: 'u' }, { 'userId.x': 1 }, 'u')).message,
    ).to.equal('Owner field immutable');
    assertMayChange(def(true), { userId: 'u' }, { userId: 'u' }, 'u');
  });
});

describe('data API populate fields', () => {
  it('takes Ref fields and Arrays of Refs that name a target', () => {
    const def = {
      fields: [
        { name: 'one', type: 'Ref', ref: 'a' },
        { name: 'many', type: 'Array', items: { type: 'Ref', ref: 'b' } },
        { name: 'loose', type: 'Ref' },
      ],
    } as CollectionDef;
    expect(populateFields(def, ['one', 'many'])).to.deep.equal([
      { name: 'one', target: 'a', many: false },
      { name: 'many', target: 'b', many: true },
    ]);
    expect(failure(() => populateFields(def, ['loose'])).message).to.equal(
      'Cannot populate "loose": the field names no target collection',
    );
  });
});

describe('data API update preview', () => {
  it('applies dot paths on copies', () => {
    const doc = { a: { b: 1, c: 2 }, list: [1, 2], s: 'x' };
    const out = applySet(doc, { 'a.b': 5, 'list.1': 9, 'n.m': true, s: 'y' });
    expect(out).to.deep.equal({ a: { b: 5, c: 2 }, list: [1, 9], s: 'y', n: { m: true } });
    expect(doc).to.deep.equal({ a: { b: 1, c: 2 }, list: [1, 2], s: 'x' });
  });
});
