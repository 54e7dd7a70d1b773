// Dredd fixtures of the AI keys and tools (dashboard). The contract run points the service at the
// loopback OpenAI-compatible test server (test/contract/run.ts), which accepts the platform key
// and the spec's example key, so the example bodies go through as written: the example key is
// saved for the fixture admin (Pro) and the project, and the AI tools then run on it. The Query
// Builder asks about a collection of its own; the Collection Creator session started by the
// start example is continued and confirmed by the next two examples. Loaded by hooks.cjs.
const { state, call } = require('./fixtures.cjs');

const PROJECT = '65f1c2a4b7e8d90012345678';
const SESSION = '65f1c2a4b7e8d9001234567c';
const name = (path, summary, status = 200) => `${path} > ${summary} > ${status} > application/json`;
const rewrite = (transaction, from, to) => {
  transaction.fullPath = transaction.fullPath.replace(from, to);
  transaction.request.uri = transaction.request.uri.replace(from, to);
};

module.exports = (hooks) => {
  const before = (transactionName, prepare) =>
    hooks.before(transactionName, (transaction, done) => {
      transaction.request.headers.Cookie = state.admin.cookie;
      rewrite(transaction, PROJECT, state.projectId);
      if (state.aiSessionId) rewrite(transaction, SESSION, state.aiSessionId);
      Promise.resolve(prepare?.(transaction)).then(
        () => done(),
        (err) => done(err),
      );
    });

  before(name('/api/user/me/byok', "Save or clear the account's AI provider key (Pro)"));
  before(name('/api/projects/{projectId}/byok', "Save or clear the project's AI provider key (Pro, admins)"));
  before(
    name(
      '/api/projects/{projectId}/ai',
      "Which AI provider key the caller's AI requests would run on (members)",
    ),
  );
  before(
    name(
      '/api/projects/{projectId}/ai/query-builder',
      'Turn a plain-language request into a data API query (members)',
    ),
    () =>
      call(state.dashboardUrl, 'POST', `/api/projects/${state.projectId}/collections`, {
        body: { name: 'orders', fields: [{ name: 'status', type: 'String' }] },
        cookie: state.admin.cookie,
      }).catch(() => undefined),
  );
  const startName = name(
    '/api/projects/{projectId}/ai/collection-sessions',
    'Start a Collection Creator chat (members)',
    201,
  );
  before(startName);
  hooks.after(startName, (transaction, done) => {
    state.aiSessionId = JSON.parse(transaction.real.body).data.session.id;
    done();
  });
  before(
    name(
      '/api/projects/{projectId}/ai/collection-sessions/{sessionId}/messages',
      'Continue a Collection Creator chat (members)',
    ),
  );
  before(
    name(
      '/api/projects/{projectId}/ai/collection-sessions/{sessionId}/confirm',
      'Create the proposed collection (members)',
      201,
    ),
  );
};
