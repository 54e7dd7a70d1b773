// Dredd fixtures of declared indexes (dashboard .../collections/{name}/indexes and public
// /api/schemas/{name}/indexes), slow queries and collection sizes, in the fixture project. The
// index transactions work on a flexible collection of their own (the collections transactions
// delete the example `posts`); each drop follows the create of the index it names (the public
// one makes it when missing).
module.exports = (hooks) => {
  const { state, call } = require('./fixtures.cjs');
  const PROJECT = '65f1c2a4b7e8d90012345678';
  const COLLECTION = 'contract_indexes';
  const name = (path, summary, status = 200) => `${path} > ${summary} > ${status} > application/json`;
  const ignoreConflict = (promise) =>
    promise.catch((err) => (/ -> 409 /.test(err.message) ? undefined : Promise.reject(err)));
  const ready = () =>
    ignoreConflict(
      call(state.dashboardUrl, 'POST', `/api/projects/${state.projectId}/collections`, {
        body: { name: COLLECTION, fields: [{ name: 'status', type: 'String' }] },
        cookie: state.admin.cookie,
      }),
    );
  const point = (transaction, auth) => {
    auth(transaction);
    for (const [from, to] of [
      [PROJECT, state.projectId],
      ['/collections/posts/', `/collections/${COLLECTION}/`],
      ['/api/schemas/posts/', `/api/schemas/${COLLECTION}/`],
    ]) {
      transaction.fullPath = transaction.fullPath.replace(from, to);
      transaction.request.uri = transaction.request.uri.replace(from, to);
    }
  };
  const session = (transaction) => {
    transaction.request.headers.Cookie = state.admin.cookie;
  };
  const secret = (transaction) => {
    transaction.request.headers['x-api-key'] = state.secretKey;
  };
  const before = (transactionName, auth, prepare = ready) =>
    hooks.before(transactionName, (transaction, done) => {
      prepare().then(
        () => {
          point(transaction, auth);
          done();
        },
        (err) => done(err),
      );
    });
  /** The index a drop example names, made when the create transaction did not run first. */
  const existing = (keys) => () =>
    ready().then(() =>
      ignoreConflict(
        call(state.publicUrl, 'POST', `/api/schemas/${COLLECTION}/indexes`, {
          body: keys,
          key: state.secretKey,
        }),
      ),
    );

  const DASH = '/api/projects/{projectId}/collections/{collectionName}/indexes';
  before(name(DASH, "A collection's indexes (members)"), session);
  before(name(DASH, 'Declare an index (members)', 201), session);
  before(name(`${DASH}/{indexName}`, 'Drop a declared index (members)'), session);
  const PUB = '/api/schemas/{collectionName}/indexes';
  before(name(PUB, "A collection's indexes with the secret key"), secret);
  before(name(PUB, 'Declare an index with the secret key', 201), secret);
  before(
    name(`${PUB}/{indexName}`, 'Drop a declared index with the secret key'),
    secret,
    existing({ keys: [{ field: 'createdAt' }], expireAfterSeconds: 2592000 }),
  );

  const nothing = () => Promise.resolve();
  // Dredd names a path with query parameters by its template (`{?collection}`).
  const SLOW = '/api/projects/{projectId}/slow-queries{?collection}';
  before(name(`${SLOW}`, "The project's slow queries (members)"), session, nothing);
  before(name(`${SLOW}`, "Forget the project's slow queries (members)"), session, nothing);
  before(
    name(
      '/api/projects/{projectId}/collection-sizes',
      "Document counts per collection, and the embedded engine's warning (members)",
    ),
    session,
    nothing,
  );
};
