// Dredd fixtures of the dashboard's own document and file endpoints
// (/api/projects/{projectId}/data/... and /files...), called with the admin's session cookie. The
// data transactions work on a flexible collection of their own (the collections transactions
// delete the example `posts`); each write gets a fresh document.
module.exports = (hooks) => {
  const { state, call } = require('./fixtures.cjs');
  const PROJECT = '65f1c2a4b7e8d90012345678';
  const DOC = '65f1c2a4b7e8d90012345670';
  const COLLECTION = 'contract_docs';
  const name = (path, summary, status = 200) => `${path} > ${summary} > ${status} > application/json`;
  const settle = (promise, done) =>
    promise.then(
      () => done(),
      (err) => done(err),
    );
  const dash = (method, path, body) =>
    call(state.dashboardUrl, method, `/api/projects/${state.projectId}${path}`, {
      body,
      cookie: state.admin.cookie,
    });

  let collection;
  const ready = () =>
    (collection ??= dash('POST', '/collections', {
      name: COLLECTION,
      fields: [{ name: 'title', type: 'String' }],
    }));
  const newDocument = async ({ trashed = false } = {}) => {
    await ready();
    const id = (await dash('POST', `/data/${COLLECTION}`, { title: 'contract' })).json.data._id;
    if (trashed) await dash('DELETE', `/data/${COLLECTION}/${id}`);
    return id;
  };
  const point = (transaction, id) => {
    transaction.request.headers.Cookie = state.admin.cookie;
    transaction.fullPath = transaction.fullPath
      .replace(PROJECT, state.projectId)
      .replace('/data/posts', `/data/${COLLECTION}`)
      .replace(DOC, id ?? DOC);
    transaction.request.uri = transaction.fullPath;
  };

  const docs = '/api/projects/{projectId}/data/{collectionName}';
  for (const [path, summary, status, doc] of [
    [docs, "List a collection's documents, or its trash (members)", 200, null],
    [docs, 'Add a document (members)', 201, null],
    [`${docs}/{id}`, 'Read one document (members)', 200, {}],
    [`${docs}/{id}`, 'Change fields of a document (members)', 200, {}],
    [`${docs}/{id}`, 'Move a document to the trash (members)', 200, {}],
    [`${docs}/{id}/restore`, 'Take a document out of the trash (members)', 200, { trashed: true }],
    // The spec's example ids name no document: a 200 saying "not found" for each.
    [`${docs}/bulk/delete`, 'Move up to 100 documents to the trash (members)', 200, null],
    [`${docs}/bulk/restore`, 'Take up to 100 documents out of the trash (members)', 200, null],
  ]) {
    hooks.before(name(path, summary, status), (transaction, done) => {
      settle(
        (doc ? newDocument(doc) : ready()).then((id) => point(transaction, doc ? id : undefined)),
        done,
      );
    });
  }

  // The members' stream stays open until the client leaves, and Dredd reads a response to its
  // end: checked over HTTP in test/api/project-stream.test.ts instead.
  hooks.before(
    `/api/projects/{projectId}/collections/{collectionName}/stream > Stream a collection's document events (members, Server-Sent Events) > 200 > text/event-stream`,
    (transaction, done) => {
      transaction.skip = true;
      done();
    },
  );
  // The request log of the fixture project (the example filters are kept: an empty page is a 200).
  hooks.before(
    name('/api/projects/{projectId}/request-log', 'Recent public API requests of the project (members)'),
    (transaction, done) => {
      point(transaction);
      done();
    },
  );

  /**
   * A file uploaded through these same endpoints (the secret key may have been rotated by an
   * earlier transaction); confirmed when asked. Returns its path and size.
   */
  async function upload({ confirm }) {
    const content = Buffer.from(`contract upload ${Date.now()}`);
    const ticket = (
      await dash('POST', '/files/upload-request', {
        filename: 'contract.txt',
        contentType: 'text/plain',
        size: content.length,
      })
    ).json.data;
    // The filesystem store's URLs are URLs of the public API: send them through its proxy.
    const target = new URL(ticket.signedUrl);
    const url = target.pathname.startsWith('/api/storage/objects/')
      ? state.publicUrl + target.pathname + target.search
      : ticket.signedUrl;
    const put = await fetch(url, { method: 'PUT', body: content, headers: { 'content-type': 'text/plain' } });
    if (!put.ok) throw new Error(`PUT to the signed URL -> ${put.status} ${await put.text()}`);
    if (confirm)
      await dash('POST', '/files/upload-confirm', { filePath: ticket.filePath, size: content.length });
    return { filePath: ticket.filePath, size: content.length };
  }

  const files = '/api/projects/{projectId}/files';
  for (const [path, summary] of [
    [files, "List the project's files, newest first (members)"],
    [`${files}/upload-request`, 'Get a presigned URL to upload one file (members)'],
  ]) {
    hooks.before(name(path, summary), (transaction, done) => {
      point(transaction);
      done();
    });
  }
  hooks.before(
    name(`${files}/upload-confirm`, 'Confirm an upload once its bytes are stored (members)'),
    (t, done) => {
      point(t);
      settle(
        upload({ confirm: false }).then(({ filePath, size }) => {
          t.request.body = JSON.stringify({ filePath, size });
        }),
        done,
      );
    },
  );
  hooks.before(name(files, 'Delete a file permanently (members)'), (t, done) => {
    point(t);
    settle(
      upload({ confirm: true }).then(({ filePath }) => {
        t.request.body = JSON.stringify({ path: filePath });
      }),
      done,
    );
  });
};
