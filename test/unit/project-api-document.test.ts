import { expect } from 'chai';
import { buildProjectDocument } from '../../src/services/project-api/document.js';
import { matchesETag } from '../../src/services/project-api/index.js';
import { to31 } from '../../src/services/project-api/published.js';
import type { CollectionDef, FieldDef } from '../../src/services/types.js';

const collection = (name: string, mode: CollectionDef['mode'], fields: FieldDef[]): CollectionDef => ({
  id: name,
  projectId: 'p',
  name,
  mode,
  fields,
  rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
  createdAt: new Date(0),
  updatedAt: new Date(0),
});
const project = { id: 'p', name: 'Shop', settings: { endUserAuth: true, allowedOrigins: [], siteUrl: null } };
const build = (collections: CollectionDef[]) =>
  buildProjectDocument({ project, collections, publicUrl: 'https://api.example.com' });
const products = collection('products', 'schema', [
  { name: 'name', type: 'String', required: true },
  { name: 'price', type: 'Number' },
  { name: 'soldAt', type: 'Date' },
]);

describe('project API document (pure parts)', () => {
  it('names its version by its content: the same definitions give the same version', () => {
    const first = build([products]);
    expect(build([products]).version).to.equal(first.version);
    expect((first.document.info as { version: string }).version).to.equal(first.version);
    const changed = collection('products', 'schema', [...products.fields, { name: 'sku', type: 'String' }]);
    expect(build([changed]).version).to.not.equal(first.version);
  });

  it('types Date fields as date-times in reads and as ISO strings or epoch milliseconds in bodies', () => {
    const { schemas } = build([products]).document.components as { schemas: Record<string, any> };
    expect(schemas.products.properties.soldAt.type).to.deep.equal(['string', 'null']);
    expect(schemas.products.properties.soldAt.format).to.equal('date-time');
    const [value, nothing] = schemas['products.Create'].properties.soldAt.anyOf;
    expect(value.anyOf).to.deep.equal([{ type: 'string' }, { type: 'integer' }]);
    expect(nothing).to.deep.equal({ type: 'null' });
  });

  it('compares If-None-Match weakly, with lists and *', () => {
    expect(matchesETag('"a"', '"a"')).to.equal(true);
    expect(matchesETag('W/"a"', '"a"')).to.equal(true);
    expect(matchesETag('"b", "a"', '"a"')).to.equal(true);
    expect(matchesETag('*', '"a"')).to.equal(true);
    expect(matchesETag('"b"', '"a"')).to.equal(false);
    expect(matchesETag(undefined, '"a"')).to.equal(false);
  });

  it('turns OpenAPI 3.0 nullable into a null type and renames shared refs', () => {
    expect(to31({ type: 'string', nullable: true })).to.deep.equal({ type: ['string', 'null'] });
    expect(to31({ enum: ['a'], type: 'string', nullable: true })).to.deep.equal({
      enum: ['a', null],
      type: ['string', 'null'],
    });
    expect(to31({ $ref: '#/components/schemas/Error' })).to.deep.equal({
      $ref: '#/components/schemas/baas.Error',
    });
  });
});
