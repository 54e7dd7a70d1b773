import { expect } from 'chai';
import { ApiError } from '../../src/http/errors.js';
import {
  checkCollectionInput,
  checkCollectionName,
  type DefinitionContext,
  type RawCollectionInput,
} from '../../src/services/schema/field-definitions.js';

const create: DefinitionContext = { existingCollections: new Set(['authors', 'users']), operation: 'create' };
const check = (input: RawCollectionInput, ctx = create) => checkCollectionInput(input, ctx);

function refuse(input: RawCollectionInput, ctx = create): ApiError {
  try {
    check(input, ctx);
  } catch (err) {
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).status).to.equal(400);
    return err as ApiError;
  }
  throw new Error('expected a 400');
}

const withFields = (fields: unknown[], extra: RawCollectionInput = {}) => ({
  name: 'posts',
  fields,
  ...extra,
});

describe('collection definitions', () => {
  describe('name', () => {
    for (const name of ['posts', 'P', 'a1_b-c', 'x'.repeat(64)])
      it(`accepts ${name.slice(0, 10)}`, () => expect(checkCollectionName(name)).to.equal(name));
    for (const name of [
      '',
      '1posts',
      '_posts',
      'system.users',
      'a.b',
      'a b',
      'x'.repeat(65),
      'café',
      3,
      undefined,
    ])
      it(`refuses ${JSON.stringify(name)}`, () => {
        expect(() => checkCollectionName(name)).to.throw(
          'Collection name must be 1 to 64 letters, digits, "_" or "-", starting with a letter',
        );
      });
  });

  describe('mode and fields', () => {
    it('defaults to flexible mode and normalises flags', () => {
      const out = check(withFields([{ name: 'title', type: 'String' }]));
      expect(out.mode).to.equal('flexible');
      expect(out.fields).to.deep.equal([{ name: 'title', type: 'String', required: false, unique: false }]);
      expect(out.rls).to.deep.equal({ enabled: false, mode: 'public-read', ownerField: 'userId' });
    });

    it('refuses an unknown mode', () => {
      expect(refuse(withFields([{ name: 'a', type: 'String' }], { mode: 'strict' })).message).to.equal(
        'mode must be "flexible" or "schema"',
      );
    });

    for (const fields of [[], undefined, 'x'])
      it(`needs at least one field in schema mode (${JSON.stringify(fields)})`, () => {
        expect(refuse({ name: 'posts', mode: 'schema', fields }).message).to.equal(
          'At least one field is required',
        );
      });

    it('lets a flexible collection have no field (it has no schema to be empty)', () => {
      expect(check({ name: 'posts', mode: 'flexible', fields: [] }).fields).to.deep.equal([]);
      expect(check({ name: 'posts' }).fields).to.deep.equal([]);
      expect(refuse({ name: 'posts', mode: 'flexible', fields: 'x' }).message).to.equal(
        'At least one field is required',
      );
      // On update the body replaces the fields: leaving them out must not wipe them.
      const update = { existingCollections: new Set<string>(), operation: 'update' as const };
      expect(check({ name: 'posts', mode: 'flexible', fields: [] }, update).fields).to.deep.equal([]);
      expect(() => check({ name: 'posts', mode: 'flexible' }, update)).to.throw(
        'At least one field is required',
      );
    });

    it('refuses duplicate names, at every level', () => {
      expect(
        refuse(
          withFields([
            { name: 'a', type: 'String' },
            { name: 'a', type: 'Number' },
          ]),
        ).message,
      ).to.equal('Duplicate field name "a"');
      const nested = withFields([
        {
          name: 'meta',
          type: 'Object',
          fields: [
            { name: 'x', type: 'String' },
            { name: 'x', type: 'String' },
          ],
        },
      ]);
      expect(refuse(nested).message).to.equal('Duplicate field name "meta.x"');
    });

    it('applies the body field-name rules to field names', () => {
      const cases: [string, string][] = [
        ['$set', 'Invalid field name "$set": must not start with "$"'],
        ['a.b', 'Invalid field name "a.b": must not contain "."'],
        ['__proto__', 'Invalid field name "__proto__": is a reserved name'],
        ['constructor', 'Invalid field name "constructor": is a reserved name'],
        [' a', 'Invalid field name " a": must not start or end with white space'],
        ['_id', 'Invalid field name "_id": _id is a system field and cannot be defined'],
        ['createdAt', 'Invalid field name "createdAt": createdAt is a system field and cannot be defined'],
        ['x'.repeat(101), `Invalid field name "${'x'.repeat(101)}": is longer than 100 characters`],
      ];
      for (const [name, message] of cases)
        expect(refuse(withFields([{ name, type: 'String' }])).message).to.equal(message);
      // System names are only reserved at the top level.
      check(withFields([{ name: 'meta', type: 'Object', fields: [{ name: 'createdAt', type: 'Date' }] }]));
    });

    it('refuses unknown types', () => {
      expect(refuse(withFields([{ name: 'a', type: 'Text' }])).message).to.equal(
        'Field "a" has an unknown type; use one of String, Number, Boolean, Date, Object, Array, Ref',
      );
    });
  });

  describe('defaults', () => {
    it('keeps a default of the right type on non-required String, Number and Boolean fields', () => {
      const out = check(
        withFields([
          { name: 's', type: 'String', default: 'x' },
          { name: 'n', type: 'Number', default: 0 },
          { name: 'b', type: 'Boolean', default: false },
        ]),
      );
      expect(out.fields.map((f) => f.default)).to.deep.equal(['x', 0, false]);
    });

    for (const type of ['Date', 'Ref', 'Array', 'Object'])
      it(`refuses a default on ${type}`, () => {
        const field = { name: 'f', type, default: 'x', ...(type === 'Ref' ? { ref: 'authors' } : {}) };
        expect(refuse(withFields([field])).message).to.match(
          /^Default is only allowed on non-required String, Number and Boolean fields \(f is an? \w+\)$/,
        );
      });

    for (const [type, value] of [
      ['String', 1],
      ['Number', '1'],
      ['Boolean', 'true'],
      ['Number', {}],
    ] as const)
      it(`refuses a ${type} default of ${JSON.stringify(value)}`, () => {
        expect(refuse(withFields([{ name: 'f', type, default: value }])).message).to.equal(
          `Default of "f" must be a ${type}`,
        );
      });

    it('is cleared by required', () => {
      const out = check(withFields([{ name: 'f', type: 'String', required: true, default: 'x' }]));
      expect(out.fields[0]).to.deep.equal({ name: 'f', type: 'String', required: true, unique: false });
    });

    it('treats a null default as none', () => {
      expect(check(withFields([{ name: 'f', type: 'Date', default: null }])).fields[0]).to.not.have.property(
        'default',
      );
    });
  });

  describe('unique', () => {
    it('is allowed on top-level scalar fields', () => {
      for (const type of ['String', 'Number', 'Boolean', 'Date'])
        expect(check(withFields([{ name: 'f', type, unique: true }])).fields[0]!.unique).to.equal(true);
    });
    it('is refused on Object and Array fields and on sub-fields', () => {
      expect(refuse(withFields([{ name: 'f', type: 'Array', unique: true }])).message).to.equal(
        'Unique is only allowed on top-level String, Number, Boolean, Date and Ref fields (f is an Array)',
      );
      expect(
        refuse(
          withFields([{ name: 'm', type: 'Object', fields: [{ name: 'f', type: 'String', unique: true }] }]),
        ).message,
      ).to.equal(
        'Unique is only allowed on top-level String, Number, Boolean, Date and Ref fields (f is nested)',
      );
    });
  });

  describe('Object, Array and Ref', () => {
    const level = (depth: number): unknown =>
      depth === 1
        ? { name: 'leaf', type: 'String' }
        : { name: `l${depth}`, type: 'Object', fields: [level(depth - 1)] };

    it('nests Object sub-fields up to 3 levels', () => {
      const out = check(withFields([level(3)]));
      expect(out.fields[0]!.fields![0]!.fields![0]!.name).to.equal('leaf');
      expect(refuse(withFields([level(4)])).message).to.equal(
        'Object fields can be nested at most 3 levels deep (l2 is at level 3)',
      );
    });

    it('counts Array item sub-fields as a level', () => {
      const items = (fields: unknown[]) => ({
        name: 'list',
        type: 'Array',
        items: { type: 'Object', fields },
      });
      check(withFields([items([{ name: 'o', type: 'Object', fields: [{ name: 'x', type: 'String' }] }])]));
      expect(
        refuse(
          withFields([
            items([
              {
                name: 'o',
                type: 'Object',
                fields: [{ name: 'p', type: 'Object', fields: [{ name: 'x', type: 'String' }] }],
              },
            ]),
          ]),
        ).message,
      ).to.equal('Object fields can be nested at most 3 levels deep (p is at level 3)');
    });

    it('drops an empty sub-field list (a free-form Object)', () => {
      expect(check(withFields([{ name: 'o', type: 'Object', fields: [] }])).fields[0]).to.not.have.property(
        'fields',
      );
    });

    it('refuses sub-fields, items or ref on the wrong type', () => {
      expect(refuse(withFields([{ name: 's', type: 'String', fields: [] }])).message).to.equal(
        'Only Object fields may have sub-fields (s is a String)',
      );
      expect(refuse(withFields([{ name: 's', type: 'String', items: { type: 'String' } }])).message).to.equal(
        'Only Array fields may have "items" (s is a String)',
      );
      expect(refuse(withFields([{ name: 's', type: 'String', ref: 'authors' }])).message).to.equal(
        'Only Ref fields may have "ref" (s is a String)',
      );
    });

    it('checks Array items', () => {
      expect(
        check(withFields([{ name: 't', type: 'Array', items: { type: 'String' } }])).fields[0]!.items,
      ).to.deep.equal({
        type: 'String',
      });
      expect(refuse(withFields([{ name: 't', type: 'Array', items: { type: 'Array' } }])).message).to.equal(
        'Array items cannot be Arrays (t)',
      );
      expect(refuse(withFields([{ name: 't', type: 'Array', items: { type: 'Text' } }])).message).to.match(
        /unknown type/,
      );
      expect(refuse(withFields([{ name: 't', type: 'Array', items: { type: 'Ref' } }])).message).to.equal(
        'Ref field "t" must name its target collection in "ref"',
      );
      expect(
        refuse(withFields([{ name: 't', type: 'Array', items: { type: 'String', fields: [] } }])).message,
      ).to.equal('Only Object items may have sub-fields (t)');
    });

    it('needs a Ref target that exists in the project or is the collection itself', () => {
      expect(check(withFields([{ name: 'a', type: 'Ref', ref: 'authors' }])).fields[0]!.ref).to.equal(
        'authors',
      );
      expect(check(withFields([{ name: 'parent', type: 'Ref', ref: 'posts' }])).fields[0]!.ref).to.equal(
        'posts',
      );
      expect(refuse(withFields([{ name: 'a', type: 'Ref' }])).message).to.equal(
        'Ref field "a" must name its target collection in "ref"',
      );
      expect(refuse(withFields([{ name: 'a', type: 'Ref', ref: 'ghosts' }])).message).to.equal(
        'Ref field "a" points to collection "ghosts", which does not exist in this project',
      );
    });
  });

  describe('protected and private flags', () => {
    const users = (fields: unknown[]) => ({ name: 'users', fields });
    it('keeps them, when true, on top-level fields of the users collection only', () => {
      const out = check(
        users([
          { name: 'role', type: 'String', default: 'user', protected: true },
          { name: 'phone', type: 'String', private: true, protected: false },
        ]),
      );
      expect(out.fields.find((f) => f.name === 'role')).to.deep.include({ protected: true, default: 'user' });
      const phone = out.fields.find((f) => f.name === 'phone')!;
      expect(phone).to.include({ private: true });
      expect(phone).not.to.have.property('protected');
    });
    it('refuses them elsewhere, nested, on the contract fields, not boolean, or protected with required', () => {
      const cases: [RawCollectionInput, string][] = [
        [
          withFields([{ name: 'a', type: 'String', private: true }]),
          '"private" is only allowed on fields of the users collection (a)',
        ],
        [
          users([{ name: 'o', type: 'Object', fields: [{ name: 'x', type: 'String', protected: true }] }]),
          '"protected" is only allowed on top-level fields (x)',
        ],
        [
          users([{ name: 'password', type: 'String', required: true, private: true }]),
          'password is managed by the auth service and cannot be private',
        ],
        [
          users([{ name: 'role', type: 'String', protected: 'yes' }]),
          'protected of "role" must be a boolean',
        ],
      ];
      for (const [input, message] of cases) expect(refuse(input).message).to.equal(message);
      expect(
        refuse(users([{ name: 'role', type: 'String', required: true, protected: true }])).message,
      ).to.match(/cannot be both protected and required/);
    });
  });

  describe('the users collection', () => {
    it('adds the contract fields when left out', () => {
      const out = check({ name: 'users', fields: [{ name: 'name', type: 'String' }] });
      expect(
        out.fields
          .slice(0, 2)
          .map((f) => f.name)
          .sort(),
      ).to.deep.equal(['email', 'password']);
      expect(out.fields.find((f) => f.name === 'email')).to.include({
        type: 'String',
        required: true,
        unique: true,
      });
      expect(out.fields.find((f) => f.name === 'password')).to.include({ type: 'String', required: true });
    });

    it('implies the contract flags when left out', () => {
      const out = check({
        name: 'users',
        fields: [
          { name: 'email', type: 'String' },
          { name: 'password', type: 'String' },
        ],
      });
      expect(out.fields[0]).to.include({ required: true, unique: true });
    });

    it('refuses retyping or weakening the contract fields', () => {
      expect(refuse({ name: 'users', fields: [{ name: 'email', type: 'Number' }] }).message).to.equal(
        'Field "email" of the users collection must be a String',
      );
      expect(
        refuse({ name: 'users', fields: [{ name: 'email', type: 'String', required: false }] }).message,
      ).to.equal('Field "email" of the users collection must be required');
      expect(
        refuse({ name: 'users', fields: [{ name: 'email', type: 'String', unique: false }] }).message,
      ).to.equal('Field "email" of the users collection must be unique');
      expect(refuse({ name: 'users', fields: [{ name: 'password', type: 'Object' }] }).message).to.equal(
        'Field "password" of the users collection must be a String',
      );
    });

    it('refuses removing them on update', () => {
      const update: DefinitionContext = { ...create, operation: 'update' };
      expect(refuse({ name: 'users', fields: [{ name: 'email', type: 'String' }] }, update).message).to.equal(
        'The users collection must keep its password field (String, required)',
      );
    });
  });

  describe('RLS', () => {
    it('accepts a String or Ref owner field', () => {
      const rls = { enabled: true, mode: 'private', ownerField: 'owner' };
      expect(check(withFields([{ name: 'owner', type: 'String' }], { rls })).rls).to.deep.equal(rls);
      check(withFields([{ name: 'owner', type: 'Ref', ref: 'users' }], { rls }));
    });

    it('refuses an owner field that is missing or of another type', () => {
      expect(
        refuse(withFields([{ name: 'title', type: 'String' }], { rls: { enabled: true } })).message,
      ).to.equal('RLS owner field "userId" is not a field of this collection');
      expect(
        refuse(withFields([{ name: 'userId', type: 'Number' }], { rls: { enabled: true } })).message,
      ).to.equal('RLS owner field "userId" must be a String or Ref field (it is a Number)');
    });

    it('refuses a Ref owner field that does not point at users', () => {
      expect(
        refuse(withFields([{ name: 'userId', type: 'Ref', ref: 'posts' }], { rls: { enabled: true } }))
          .message,
      ).to.equal(
        'RLS owner field "userId" refers to "posts": an owner field holds an end user\'s id, so a Ref must point at users',
      );
    });

    it('does not check the owner field while RLS is off', () => {
      check(
        withFields([{ name: 'title', type: 'String' }], { rls: { enabled: false, ownerField: 'nobody' } }),
      );
    });

    it('keeps stored settings for parts left out on update', () => {
      const update: DefinitionContext = {
        ...create,
        operation: 'update',
        currentMode: 'schema',
        currentRls: { enabled: true, mode: 'private', ownerField: 'owner' },
      };
      const out = check(
        withFields([{ name: 'owner', type: 'String' }], { rls: { mode: 'public-read' } }),
        update,
      );
      expect(out.mode).to.equal('schema');
      expect(out.rls).to.deep.equal({ enabled: true, mode: 'public-read', ownerField: 'owner' });
    });

    it('refuses malformed settings', () => {
      const f = [{ name: 'userId', type: 'String' }];
      expect(refuse(withFields(f, { rls: 'on' })).message).to.equal('rls must be an object');
      expect(refuse(withFields(f, { rls: { mode: 'open' } })).message).to.equal(
        'rls.mode must be "public-read" or "private"',
      );
      expect(refuse(withFields(f, { rls: { ownerField: '_id' } })).message).to.equal(
        'rls.ownerField must name a top-level field',
      );
    });
  });
});
