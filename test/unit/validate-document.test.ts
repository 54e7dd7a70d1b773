import { expect } from 'chai';
import { failure } from '../helpers/errors.js';
import {
  assertSafeFieldNames,
  parseDateValue,
  validateDocument,
  type WriteMode,
} from '../../src/services/schema/validate-document.js';
import type { CollectionDef, FieldDef } from '../../src/services/types.js';

const fields: FieldDef[] = [
  { name: 'title', type: 'String', required: true },
  { name: 'status', type: 'String', default: 'draft' },
  { name: 'views', type: 'Number', default: 0 },
  { name: 'published', type: 'Boolean', default: false },
  { name: 'publishedAt', type: 'Date' },
  { name: 'authorId', type: 'Ref', ref: 'authors' },
  { name: 'tags', type: 'Array', items: { type: 'String' } },
  { name: 'anything', type: 'Array' },
  { name: 'free', type: 'Object' },
  {
    name: 'meta',
    type: 'Object',
    fields: [
      { name: 'views', type: 'Number' },
      { name: 'lang', type: 'String', default: 'en' },
      { name: 'source', type: 'String', required: true },
      {
        name: 'geo',
        type: 'Object',
        fields: [
          { name: 'lat', type: 'Number' },
          { name: 'extra', type: 'Object' },
        ],
      },
    ],
  },
  {
    name: 'comments',
    type: 'Array',
    items: { type: 'Object', fields: [{ name: 'text', type: 'String', required: true }] },
  },
  { name: 'dates', type: 'Array', items: { type: 'Date' } },
];
const schema: Pick<CollectionDef, 'mode' | 'fields'> = { mode: 'schema', fields };
const flexible: Pick<CollectionDef, 'mode' | 'fields'> = {
  mode: 'flexible',
  fields: [
    { name: 'title', type: 'String', required: true },
    { name: 'views', type: 'Number', default: 0 },
  ],
};

const reject = (body: unknown, mode: WriteMode = 'create', def = schema) =>
  failure(() => validateDocument(def, body, mode));

describe('validateDocument', () => {
  describe('the body', () => {
    for (const body of [null, [], 'text', 3, true, undefined])
      it(`refuses ${JSON.stringify(body)} as a body`, () => {
        const err = reject(body);
        expect(err.status).to.equal(400);
        expect(err.message).to.equal('Validation failed: the body must be a JSON object');
        expect(reject(body, 'update', flexible).status).to.equal(400);
      });
  });

  describe('schema mode, each type', () => {
    const cases: [string, unknown[], unknown[], string][] = [
      ['title', ['', 'hello'], [1, true, {}, [], ['a']], 'must be a String'],
      ['views', [0, -1.5, 1e300], ['1', true, {}, []], 'must be a Number'],
      ['published', [true, false], ['true', 1, 0, 'false'], 'must be a Boolean'],
      [
        'publishedAt',
        ['2024-05-01', '2024-05-01T10:00:00Z', 1714557600000],
        ['yesterday', '2024-02-30', 1.5, true, '1714557600000'],
        'must be a Date (an ISO 8601 string or epoch milliseconds)',
      ],
      [
        'authorId',
        ['65f1a2b3c4d5e6f7a8b9c0d1'],
        ['65f1a2b3c4d5e6f7a8b9c0d', 'zzf1a2b3c4d5e6f7a8b9c0d1', 12, {}],
        'must be a Ref (an object id string of 24 hex characters)',
      ],
      ['free', [{}, { a: [1, { b: 2 }] }], [[], 'x', 1], 'must be an Object'],
      ['anything', [[], [1, 'a', { b: null }]], [{}, 'x', 1], 'must be an Array'],
    ];
    for (const [field, good, bad, problem] of cases) {
      for (const value of good)
        it(`accepts ${JSON.stringify(value)} for ${field}`, () => {
          const base = field === 'title' ? {} : { title: 't' };
          const out = validateDocument(schema, { ...base, [field]: value }, 'create');
          expect(out).to.have.property(field);
        });
      for (const value of bad)
        it(`refuses ${JSON.stringify(value)} for ${field}: "${problem}"`, () => {
          const err = reject({ title: 't', [field]: value });
          expect(err.status).to.equal(400);
          expect(err.code).to.equal('VALIDATION_FAILED');
          expect(err.message).to.equal(`Validation failed: ${field} ${problem}`);
          expect(err.details).to.deep.equal([{ path: field, message: `${field} ${problem}` }]);
        });
    }

    it('stores a Date field as a Date and a Ref as its lower-case id string', () => {
      const out = validateDocument(
        schema,
        { title: 't', publishedAt: '2024-05-01T10:00:00+02:00', authorId: '65F1A2B3C4D5E6F7A8B9C0D1' },
        'create',
      );
      expect(out.publishedAt).to.be.instanceOf(Date);
      expect((out.publishedAt as Date).toISOString()).to.equal('2024-05-01T08:00:00.000Z');
      expect(out.authorId).to.equal('65f1a2b3c4d5e6f7a8b9c0d1');
    });

    it('converts epoch milliseconds to a Date', () => {
      const out = validateDocument(schema, { title: 't', publishedAt: 0 }, 'create');
      expect((out.publishedAt as Date).toISOString()).to.equal('1970-01-01T00:00:00.000Z');
    });
  });

  describe('required fields and defaults on create', () => {
    it('names a missing required field', () => {
      const err = reject({});
      expect(err.message).to.equal('Validation failed: title is required');
      expect(err.details).to.deep.equal([{ path: 'title', message: 'title is required' }]);
    });

    it('treats null for a required field as missing', () => {
      expect(reject({ title: null }).message).to.equal('Validation failed: title is required');
    });

    it('stores null for an optional field, without applying its default', () => {
      const out = validateDocument(schema, { title: 't', status: null, publishedAt: null }, 'create');
      expect(out.status).to.equal(null);
      expect(out.publishedAt).to.equal(null);
    });

    it('applies defaults of absent String, Number and Boolean fields, and nothing else', () => {
      const out = validateDocument(schema, { title: 't' }, 'create');
      expect(out).to.deep.equal({ title: 't', status: 'draft', views: 0, published: false });
    });

    it('keeps given values over defaults', () => {
      const out = validateDocument(
        schema,
        { title: 't', status: 'live', views: 3, published: true },
        'create',
      );
      expect(out).to.include({ status: 'live', views: 3, published: true });
    });

    it('lists every problem in details and names the first in the message', () => {
      const err = reject({ views: 'x', bogus: 1, published: 'yes' });
      expect(err.message).to.equal('Validation failed: views must be a Number');
      expect(err.details!.map((d) => d.path)).to.have.members(['views', 'bogus', 'published', 'title']);
    });

    it('refuses an unknown top-level field', () => {
      expect(reject({ title: 't', bogus: 1 }).message).to.equal(
        'Validation failed: bogus is not a field of this collection',
      );
    });

    it('does not mutate the body', () => {
      const body = { title: 't' };
      validateDocument(schema, body, 'create');
      expect(body).to.deep.equal({ title: 't' });
    });
  });

  describe('null on an optional unique field', () => {
    const def: Pick<CollectionDef, 'mode' | 'fields'> = {
      mode: 'schema',
      fields: [
        { name: 'sku', type: 'String', unique: true },
        { name: 'code', type: 'String', unique: true, required: true },
      ],
    };
    it('is left out on create, so documents do not collide on null in the unique index', () => {
      expect(validateDocument(def, { sku: null, code: 'a' }, 'create')).to.deep.equal({ code: 'a' });
      expect(reject({ code: null }, 'create', def).message).to.equal('Validation failed: code is required');
    });
    it('is refused on update', () => {
      expect(reject({ sku: null }, 'update', def).message).to.equal(
        'Validation failed: sku is unique and cannot be set to null',
      );
      expect(reject({ code: null }, 'update', def).message).to.equal('Validation failed: code is required');
    });
  });

  describe('nested objects', () => {
    it('validates sub-fields, their required fields and defaults', () => {
      const out = validateDocument(schema, { title: 't', meta: { source: 'web', views: 2 } }, 'create');
      expect(out.meta).to.deep.equal({ source: 'web', views: 2, lang: 'en' });
      expect(reject({ title: 't', meta: { views: 2 } }).message).to.equal(
        'Validation failed: meta.source is required',
      );
      expect(reject({ title: 't', meta: { source: 's', views: '2' } }).message).to.equal(
        'Validation failed: meta.views must be a Number',
      );
      expect(reject({ title: 't', meta: { source: 's', bogus: 1 } }).message).to.equal(
        'Validation failed: meta.bogus is not a field of this collection',
      );
    });

    it('validates a third level', () => {
      expect(reject({ title: 't', meta: { source: 's', geo: { lat: 'x' } } }).message).to.equal(
        'Validation failed: meta.geo.lat must be a Number',
      );
      const out = validateDocument(
        schema,
        { title: 't', meta: { source: 's', geo: { lat: 1, extra: { a: 1 } } } },
        'create',
      );
      expect(out.meta).to.deep.include({ geo: { lat: 1, extra: { a: 1 } } });
    });
  });

  describe('arrays', () => {
    it('validates each item against the item type', () => {
      expect(validateDocument(schema, { title: 't', tags: ['a', 'b'] }, 'create').tags).to.deep.equal([
        'a',
        'b',
      ]);
      const err = reject({ title: 't', tags: ['a', 2, null] });
      expect(err.message).to.equal('Validation failed: tags.1 must be a String');
      expect(err.details!.map((d) => d.path)).to.deep.equal(['tags.1', 'tags.2']);
    });

    it('validates arrays of objects and converts arrays of dates', () => {
      expect(reject({ title: 't', comments: [{ text: 'a' }, {}] }).message).to.equal(
        'Validation failed: comments.1.text is required',
      );
      const out = validateDocument(schema, { title: 't', dates: ['2024-01-02'] }, 'create');
      expect((out.dates as Date[])[0]).to.be.instanceOf(Date);
    });
  });

  describe('update (set semantics)', () => {
    it('validates only the given keys', () => {
      expect(validateDocument(schema, { views: 5 }, 'update')).to.deep.equal({ views: 5 });
      expect(reject({ views: '5' }, 'update').message).to.equal('Validation failed: views must be a Number');
    });

    it('applies no defaults and needs no required field', () => {
      expect(validateDocument(schema, { tags: [] }, 'update')).to.deep.equal({ tags: [] });
    });

    it('refuses setting a required field to null', () => {
      expect(reject({ title: null }, 'update').message).to.equal('Validation failed: title is required');
      expect(reject({ 'meta.source': null }, 'update').message).to.equal(
        'Validation failed: meta.source is required',
      );
    });

    it('validates dot paths against the nested type', () => {
      expect(validateDocument(schema, { 'meta.views': 3 }, 'update')).to.deep.equal({ 'meta.views': 3 });
      expect(reject({ 'meta.views': 'x' }, 'update').message).to.equal(
        'Validation failed: meta.views must be a Number',
      );
      expect(reject({ 'meta.geo.lat': true }, 'update').message).to.equal(
        'Validation failed: meta.geo.lat must be a Number',
      );
      expect(validateDocument(schema, { 'meta.geo.extra.deep': 1, 'free.x.y': [] }, 'update')).to.deep.equal({
        'meta.geo.extra.deep': 1,
        'free.x.y': [],
      });
      expect(validateDocument(schema, { 'tags.0': 'a' }, 'update')).to.deep.equal({ 'tags.0': 'a' });
      expect(reject({ 'tags.0': 1 }, 'update').message).to.equal(
        'Validation failed: tags.0 must be a String',
      );
      expect(reject({ 'comments.0.text': null }, 'update').message).to.equal(
        'Validation failed: comments.0.text is required',
      );
      const dated = validateDocument(schema, { 'dates.1': '2024-01-01' }, 'update');
      expect(dated['dates.1']).to.be.instanceOf(Date);
    });

    it('refuses unknown dot paths in schema mode', () => {
      for (const path of ['meta.bogus', 'bogus.x', 'title.x', 'tags.x', 'meta.geo.lat.x'])
        expect(reject({ [path]: 1 }, 'update').message).to.equal(
          `Validation failed: ${path} is not a field of this collection`,
        );
    });

    it('validates a whole nested object given in an update completely', () => {
      expect(reject({ meta: { views: 1 } }, 'update').message).to.equal(
        'Validation failed: meta.source is required',
      );
    });

    it('refuses dot paths on create', () => {
      expect(reject({ title: 't', 'meta.views': 1 }).message).to.equal(
        'Invalid field name "meta.views": must not contain "."',
      );
    });
  });

  describe('flexible mode', () => {
    it('stores any JSON as sent, with no type or required checks', () => {
      const body = { views: 'many', nested: { a: [1, { b: null }] }, when: '2024-01-01' };
      expect(validateDocument(flexible, body, 'create')).to.deep.equal(body);
      expect(validateDocument(flexible, { 'any.path': 1, title: 2 }, 'update')).to.deep.equal({
        'any.path': 1,
        title: 2,
      });
    });

    it('applies defaults on create only', () => {
      expect(validateDocument(flexible, { title: 'x' }, 'create')).to.deep.equal({ title: 'x', views: 0 });
      expect(validateDocument(flexible, { title: 'x' }, 'update')).to.deep.equal({ title: 'x' });
    });

    it('still applies the field-name rules', () => {
      expect(reject({ $where: 1 }, 'create', flexible).status).to.equal(400);
      expect(reject(JSON.parse('{"a":{"__proto__":{"x":1}}}'), 'create', flexible).message).to.equal(
        'Invalid field name "a.__proto__": is a reserved name',
      );
    });
  });
});

describe('assertSafeFieldNames', () => {
  const refuse = (json: string, allowDotPaths = false) =>
    failure(() => assertSafeFieldNames(JSON.parse(json), { allowDotPaths }));

  const cases: [string, string, string][] = [
    ['{"$where":1}', 'Invalid field name "$where": must not start with "$"', 'INVALID_FIELD_NAME'],
    ['{"a.b":1}', 'Invalid field name "a.b": must not contain "."', 'INVALID_FIELD_NAME'],
    [
      '{"__proto__":{"isAdmin":true}}',
      'Invalid field name "__proto__": is a reserved name',
      'INVALID_FIELD_NAME',
    ],
    ['{"constructor":1}', 'Invalid field name "constructor": is a reserved name', 'INVALID_FIELD_NAME'],
    ['{"prototype":1}', 'Invalid field name "prototype": is a reserved name', 'INVALID_FIELD_NAME'],
    [
      '{" name":1}',
      'Invalid field name " name": must not start or end with white space',
      'INVALID_FIELD_NAME',
    ],
    [
      '{"name\\t":1}',
      'Invalid field name "name\t": must not start or end with white space',
      'INVALID_FIELD_NAME',
    ],
    ['{"":1}', 'Invalid field name "": must not be empty', 'INVALID_FIELD_NAME'],
    ['{"a\\u0000b":1}', 'Invalid field name "a\0b": must not contain a NUL character', 'INVALID_FIELD_NAME'],
    ['{"_id":"x"}', 'Invalid field name "_id": _id is a system field and cannot be set', 'SYSTEM_FIELD'],
    [
      '{"isDeleted":true}',
      'Invalid field name "isDeleted": isDeleted is a system field and cannot be set',
      'SYSTEM_FIELD',
    ],
    [
      '{"deletedAt":null}',
      'Invalid field name "deletedAt": deletedAt is a system field and cannot be set',
      'SYSTEM_FIELD',
    ],
    [
      '{"createdAt":1}',
      'Invalid field name "createdAt": createdAt is a system field and cannot be set',
      'SYSTEM_FIELD',
    ],
    [
      '{"updatedAt":1}',
      'Invalid field name "updatedAt": updatedAt is a system field and cannot be set',
      'SYSTEM_FIELD',
    ],
    ['{"a":{"$gt":1}}', 'Invalid field name "a.$gt": must not start with "$"', 'INVALID_FIELD_NAME'],
    [
      '{"a":[{"ok":1},{"b":{"__proto__":1}}]}',
      'Invalid field name "a.1.b.__proto__": is a reserved name',
      'INVALID_FIELD_NAME',
    ],
    ['{"a":{"x.y":1}}', 'Invalid field name "a.x.y": must not contain "."', 'INVALID_FIELD_NAME'],
  ];
  for (const [json, message, code] of cases)
    it(`refuses ${json}`, () => {
      const err = refuse(json);
      expect(err.status).to.equal(400);
      expect(err.code).to.equal(code);
      expect(err.message).to.equal(message);
      expect(err.details).to.have.length(1);
    });

  it('accepts ordinary names, nested system-like names and non-leading $', () => {
    assertSafeFieldNames(
      JSON.parse('{"title":"x","price$":1,"meta":{"_id":1,"createdAt":2},"list":[{"a b":1}]}'),
      {
        allowDotPaths: false,
      },
    );
  });

  describe('with dot paths allowed', () => {
    it('accepts top-level dot paths', () => {
      assertSafeFieldNames({ 'meta.views': 1, 'tags.0': 'a' }, { allowDotPaths: true });
    });

    it('checks every segment', () => {
      expect(refuse('{"meta.$inc":1}', true).message).to.equal(
        'Invalid field name "meta.$inc": segment "$inc" must not start with "$"',
      );
      expect(refuse('{"meta.__proto__.x":1}', true).message).to.equal(
        'Invalid field name "meta.__proto__.x": segment "__proto__" is a reserved name',
      );
      expect(refuse('{"meta..x":1}', true).message).to.equal(
        'Invalid field name "meta..x": segment "" must not be empty',
      );
      expect(refuse('{"meta.":1}', true).status).to.equal(400);
    });

    it('refuses a system field as the first segment', () => {
      expect(refuse('{"_id.x":1}', true).code).to.equal('SYSTEM_FIELD');
      expect(refuse('{"createdAt.x":1}', true).message).to.equal(
        'Invalid field name "createdAt.x": createdAt.x is a system field and cannot be set',
      );
    });

    it('refuses overlapping paths', () => {
      const err = refuse('{"meta":{},"meta-x":1,"meta.views":1}', true);
      expect(err.code).to.equal('CONFLICTING_FIELDS');
      expect(err.message).to.equal('Field "meta.views" conflicts with "meta" in the same update');
    });

    it('still refuses dots inside nested objects', () => {
      expect(refuse('{"meta.a":{"b.c":1}}', true).message).to.equal(
        'Invalid field name "meta.a.b.c": must not contain "."',
      );
    });
  });

  it('refuses bodies nested deeper than the limit with a 400', () => {
    let body: unknown = 1;
    for (let i = 0; i < 100; i++) body = { a: body };
    const err = failure(() =>
      assertSafeFieldNames(body as Record<string, unknown>, { allowDotPaths: false }),
    );
    expect(err.status).to.equal(400);
    expect(err.code).to.equal('TOO_DEEP');
  });
});

describe('parseDateValue', () => {
  it('reads date-times without an offset as UTC', () => {
    expect(parseDateValue('2024-01-01T10:00')?.toISOString()).to.equal('2024-01-01T10:00:00.000Z');
    expect(parseDateValue('2024-01-01 10:00:00+0530')?.toISOString()).to.equal('2024-01-01T04:30:00.000Z');
  });
  it('refuses impossible days and times', () => {
    for (const v of ['2023-02-29', '2024-13-01', '2024-04-31', '2024-01-01T24:00', '2024-01-01T10:60']) {
      expect(parseDateValue(v), v).to.equal(undefined);
    }
  });
});
