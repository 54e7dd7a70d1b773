// Dredd hooks of the contract run over a generated project document (run.ts): every operation of
// every collection, with the project's secret key, on documents made before the first
// transaction (one to read and update, one to delete, one in the trash to restore, per
// collection). Non-2xx transactions are skipped, as in hooks.cjs, and Prism validates every
// answer against the project document.
const hooks = require('hooks');
const { COLLECTIONS, documentFor } = require('./project-fixture.cjs');

const EXAMPLE_ID = '65f1c2a4b7e8d90012345678';
const base = process.env.CONTRACT_PROJECT_API_URL;
const secretKey = process.env.CONTRACT_PROJECT_SECRET_KEY;
const ids = {};

async function call(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': secretKey },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  return JSON.parse(text).data;
}

hooks.beforeAll((transactions, done) => {
  (async () => {
    // In definition order: a Ref's target first.
    const refs = {};
    for (const { name } of COLLECTIONS) {
      const made = {};
      for (const role of ['kept', 'doomed', 'trashed']) {
        made[role] = (await call('POST', `/api/data/${name}`, documentFor(name, refs)))._id;
      }
      await call('DELETE', `/api/data/${name}/${made.trashed}`);
      refs[name] = made.kept;
      ids[name] = made;
    }
  })().then(
    () => done(),
    (err) => done(err),
  );
});

hooks.beforeEach((transaction, done) => {
  const status = Number(transaction.expected.statusCode);
  if (status < 200 || status >= 300) {
    transaction.skip = true;
    return done();
  }
  const [, collection, rest = ''] = /^\/api\/data\/([^/?]+)(\/[^?]*)?/.exec(transaction.request.uri) ?? [];
  if (!collection) return done();
  const method = transaction.request.method;
  const role = method === 'DELETE' ? 'doomed' : rest.endsWith('/restore') ? 'trashed' : 'kept';
  transaction.fullPath = transaction.fullPath.replace(EXAMPLE_ID, ids[collection][role]);
  transaction.request.uri = transaction.request.uri.replace(EXAMPLE_ID, ids[collection][role]);
  transaction.request.headers['x-api-key'] = secretKey;
  const refs = Object.fromEntries(Object.entries(ids).map(([name, made]) => [name, made.kept]));
  let body;
  if (rest === '/bulk') body = { documents: [documentFor(collection, refs)] };
  else if (rest === '/aggregate')
    body = { pipeline: [{ $limit: 5 }] }; // Dredd drops `$` keys of examples
  else if (method === 'POST' && rest === '') body = documentFor(collection, refs);
  if (body) transaction.request.body = JSON.stringify(body);
  done();
});

// Prism does the schema validation (see hooks.cjs).
hooks.beforeEachValidation((transaction, done) => {
  delete transaction.expected.bodySchema;
  delete transaction.expected.body;
  transaction.expected.headers = {};
  done();
});
