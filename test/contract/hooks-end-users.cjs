// Dredd fixtures of end-user management (public /api/users with the secret key, dashboard
// /api/projects/{projectId}/users and its users-collection) and of collection definitions by
// secret key (/api/schemas).
// Loaded by hooks.cjs, which passes Dredd's `hooks` object. Each API run makes a project of its
// own with a `users` collection and two end users: one kept for the reads and writes, one for the
// delete (which comes before disable, enable and revoke-sessions in the spec's order).
const { state, call } = require('./fixtures.cjs');

const USER = '665f1c2e9b1e8a0012345678';
const PROJECT = '65f1c2a4b7e8d90012345678';
const name = (path, summary, status = 200) => `${path} > ${summary} > ${status} > application/json`;
const settle = (promise, done) =>
  promise.then(
    () => done(),
    (err) => done(err),
  );
const rewrite = (transaction, from, to) => {
  transaction.fullPath = transaction.fullPath.replace(from, to);
  transaction.request.uri = transaction.request.uri.replace(from, to);
};

/** A project with a users collection (a protected `role`) and two signed-up users. */
async function managedProject(label) {
  const project = await call(state.dashboardUrl, 'POST', '/api/projects', {
    body: { name: label },
    cookie: state.admin.cookie,
  });
  const out = {
    projectId: project.json.data.project.id,
    secretKey: project.json.data.keys.secret,
    publishableKey: project.json.data.keys.publishable,
  };
  await call(state.dashboardUrl, 'POST', `/api/projects/${out.projectId}/collections`, {
    body: {
      name: 'users',
      mode: 'schema',
      fields: [{ name: 'role', type: 'String', default: 'user', protected: true }],
    },
    cookie: state.admin.cookie,
  });
  const signup = async (tag) =>
    (
      await call(state.publicUrl, 'POST', '/api/userAuth/signup', {
        body: { email: `${tag}-${Date.now()}@contract.test`, password: state.password },
        key: out.publishableKey,
      })
    ).json.data.user._id;
  out.userId = await signup('kept');
  out.doomedId = await signup('doomed');
  return out;
}

module.exports = function endUserHooks(hooks) {
  // Public: /api/schemas in a project of its own; PUT and DELETE act on the collection POST made.
  const sc = {};
  hooks.before(
    name('/api/schemas', 'Register a collection with the secret key', 201),
    (transaction, done) => {
      settle(
        (async () => {
          const project = await call(state.dashboardUrl, 'POST', '/api/projects', {
            body: { name: 'Contract schemas' },
            cookie: state.admin.cookie,
          });
          sc.secretKey = project.json.data.keys.secret;
          transaction.request.headers['x-api-key'] = sc.secretKey;
        })(),
        done,
      );
    },
  );
  for (const summary of [
    "Change a collection's definition with the secret key",
    'Delete a collection and all its documents with the secret key',
  ]) {
    hooks.before(name('/api/schemas/{collectionName}', summary), (transaction, done) => {
      transaction.request.headers['x-api-key'] = sc.secretKey;
      rewrite(transaction, '/api/schemas/posts', '/api/schemas/orders');
      done();
    });
  }

  // The users collection in one call: on a project of its own, made without one.
  hooks.before(
    name(
      '/api/projects/{projectId}/users-collection',
      'Create the users collection end-user sign-in needs (admins)',
      201,
    ),
    (transaction, done) => {
      settle(
        (async () => {
          const project = await call(state.dashboardUrl, 'POST', '/api/projects', {
            body: { name: 'Contract users collection' },
            cookie: state.admin.cookie,
          });
          transaction.request.headers.Cookie = state.admin.cookie;
          rewrite(transaction, PROJECT, project.json.data.project.id);
        })(),
        done,
      );
    },
  );

  // End users, on both APIs.
  const eu = {};
  const apis = [
    {
      base: '/api/users',
      suffix: { read: '', write: '' },
      auth: (transaction) => {
        transaction.request.headers['x-api-key'] = eu.secretKey;
      },
    },
    {
      base: '/api/projects/{projectId}/users',
      suffix: { read: ' (members)', write: ' (admins)' },
      auth: (transaction) => {
        transaction.request.headers.Cookie = state.admin.cookie;
        rewrite(transaction, PROJECT, eu.projectId);
      },
    },
  ];
  for (const { base, suffix, auth } of apis) {
    hooks.before(name(base, `List and search the project's end users${suffix.read}`), (transaction, done) => {
      settle(
        managedProject('Contract end-user management').then((made) => {
          Object.assign(eu, made);
          auth(transaction);
        }),
        done,
      );
    });
    const one = `${base}/{userId}`;
    for (const [path, summary, target] of [
      [one, `One end user${suffix.read}`, 'userId'],
      [one, `Set fields of an end user${suffix.write}`, 'userId'],
      [one, `Delete an end user${suffix.write}`, 'doomedId'],
      [`${one}/disable`, `Disable an end user${suffix.write}`, 'userId'],
      [`${one}/enable`, `Enable a disabled end user${suffix.write}`, 'userId'],
      [`${one}/revoke-sessions`, `Sign an end user out everywhere${suffix.write}`, 'userId'],
    ]) {
      hooks.before(name(path, summary), (transaction, done) => {
        auth(transaction);
        rewrite(transaction, USER, eu[target]);
        done();
      });
    }
  }
};
