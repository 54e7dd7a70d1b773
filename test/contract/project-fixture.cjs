// The project of the contract run over a generated project document (run.ts, hooks-project.cjs):
// a schema collection with a Ref into a flexible one, registered through the dashboard API, and
// the request bodies Dredd sends for their operations (a unique slug each time, real Ref ids).
const COLLECTIONS = [
  { name: 'categories', fields: [{ name: 'name', type: 'String' }] },
  {
    name: 'posts',
    mode: 'schema',
    fields: [
      { name: 'title', type: 'String', required: true },
      { name: 'slug', type: 'String', unique: true },
      { name: 'views', type: 'Number', default: 0 },
      { name: 'publishedAt', type: 'Date' },
      { name: 'tags', type: 'Array', items: { type: 'String' } },
      { name: 'meta', type: 'Object', fields: [{ name: 'lang', type: 'String' }] },
      { name: 'category', type: 'Ref', ref: 'categories' },
    ],
  },
];

let serial = 0;
/** A new document of a collection; `refs` holds an existing document id per collection. */
function documentFor(collection, refs) {
  serial += 1;
  if (collection === 'categories') return { name: `Category ${serial}`, color: 'teal' };
  return {
    title: `Post ${serial}`,
    slug: `post-${Date.now().toString(36)}-${serial}`,
    publishedAt: '2025-01-01T10:00:00.000Z',
    tags: ['contract'],
    meta: { lang: 'en' },
    category: refs.categories,
  };
}

module.exports = { COLLECTIONS, documentFor };
