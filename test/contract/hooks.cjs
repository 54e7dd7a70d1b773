// Dredd hooks (CommonJS, callback form: Dredd does not await async hooks).
//
// Skipped transactions, with the reason:
// - Every documented non-2xx response. Dredd makes one transaction per documented status but
//   sends the same valid request for each, so they cannot pass. Those responses are asserted in
//   the mocha suites (test/api), where every response body is validated against the spec and the
//   run fails when a documented status is never exercised (test/helpers/hooks.ts).
const hooks = require('hooks');
const { state, setup } = require('./fixtures.cjs');

hooks.beforeAll((transactions, done) => {
  setup().then(
    () => done(),
    (err) => done(err),
  );
});

/** Points a transaction at fixtures: path ids, a session cookie, a JSON body. */
function use(name, { path = {}, cookie, body, headers = {} }) {
  hooks.before(name, (transaction, done) => {
    for (const [example, actual] of Object.entries(path)) {
      const value = typeof actual === 'function' ? actual() : actual;
      transaction.fullPath = transaction.fullPath.replace(example, value);
      transaction.request.uri = transaction.request.uri.replace(example, value);
    }
    const who = typeof cookie === 'function' ? cookie() : cookie;
    if (who) transaction.request.headers.Cookie = who;
    if (body) transaction.request.body = JSON.stringify(body());
    for (const [key, value] of Object.entries(headers)) transaction.request.headers[key] = value();
    done();
  });
}

hooks.beforeEach((transaction, done) => {
  const status = Number(transaction.expected.statusCode);
  if (status < 200 || status >= 300) transaction.skip = true;
  done();
});

// Prism validates every response (status, headers, content type with parameters, and the body
// against the full schema: formats, bounds, allOf). Dredd's own checks of OpenAPI 3 are incomplete
// and compare the content type as an exact string, so they are dropped here; Dredd still checks
// the status code, and Prism answers with an error status for any violation.
hooks.beforeEachValidation((transaction, done) => {
  delete transaction.expected.bodySchema;
  delete transaction.expected.body;
  transaction.expected.headers = {};
  done();
});

// Dashboard: accounts and projects. The example ids of the spec are replaced with fixtures.
const PROJECT = '65f1c2a4b7e8d90012345678';
const DEVELOPER = '65f1c2a4b7e8d90012345679';
const admin = () => state.admin.cookie;
use('/api/user/me > The logged-in developer > 200 > application/json', { cookie: admin });
use('/api/user/me/password > Change the password > 200 > application/json', {
  cookie: () => state.passwordChanger.cookie,
});
use('/api/projects > Create a project > 201 > application/json', { cookie: admin });
use('/api/projects > Projects the caller is a member of > 200 > application/json', { cookie: admin });
use('/api/projects/{projectId} > One project (members) > 200 > application/json', {
  cookie: admin,
  path: { [PROJECT]: () => state.projectId },
});
use('/api/projects/{projectId} > Rename a project or change its settings (admins) > 200 > application/json', {
  cookie: admin,
  path: { [PROJECT]: () => state.projectId },
});
use('/api/projects/{projectId} > Delete a project and everything it owns (admins) > 200 > application/json', {
  cookie: admin,
  path: { [PROJECT]: () => state.doomedProjectId },
});
use('/api/projects/{projectId}/keys/{kind}/rotate > Replace one API key (admins) > 200 > application/json', {
  cookie: admin,
  path: { [PROJECT]: () => state.projectId },
});
use('/api/projects/{projectId}/members > Members of a project (members) > 200 > application/json', {
  cookie: admin,
  path: { [PROJECT]: () => state.projectId },
});
use(
  '/api/projects/{projectId}/members > Invite an existing developer by email (admins) > 201 > application/json',
  {
    cookie: admin,
    path: { [PROJECT]: () => state.projectId },
    body: () => ({ email: state.invitee.email, role: 'member' }),
  },
);
use(
  "/api/projects/{projectId}/members/{developerId} > Change a member's role (admins) > 200 > application/json",
  {
    cookie: admin,
    path: { [PROJECT]: () => state.projectId, [DEVELOPER]: () => state.member.id },
  },
);
use(
  '/api/projects/{projectId}/members/{developerId} > Remove a member (admins), or leave the project (any member, for themselves) > 200 > application/json',
  { cookie: admin, path: { [PROJECT]: () => state.projectId, [DEVELOPER]: () => state.member.id } },
);
use(
  "/api/admin/developers/{developerId}/plan > Set a developer's plan (operator only) > 200 > application/json",
  {
    cookie: () => state.operator.cookie,
    path: { [PROJECT]: () => state.invitee.id },
  },
);
use(
  "/api/admin/projects/{projectId}/limits > Override a project's plan limits (operator only) > 200 > application/json",
  {
    cookie: () => state.operator.cookie,
    path: { [PROJECT]: () => state.projectId },
  },
);
