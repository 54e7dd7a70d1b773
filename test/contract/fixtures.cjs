// Fixtures for the contract tests, made over HTTP through the validating proxies before Dredd's
// transactions run (hooks.beforeAll). Both Dredd runs (public, then dashboard) share one platform
// database, so the operator (the first account of the installation) signs up once and logs in
// after that. Other hook files read `state`.
const mail = require('../../scripts/mailed-link.cjs');

const PASSWORD = 'correct horse battery staple';
const state = {};

async function call(base, method, path, { body, cookie, key } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (cookie) headers.cookie = cookie;
  if (key) headers['x-api-key'] = key;
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  const setCookie = res.headers.get('set-cookie');
  return { json, cookie: setCookie ? setCookie.split(';')[0] : undefined };
}

/**
 * Logs in, or (the first time) signs up and confirms the address with the mailed link; returns
 * { id, cookie, email }. Both Dredd runs share one platform database, so the second logs in.
 */
async function developer(dash, email) {
  const body = { email, password: PASSWORD };
  const res = await call(dash, 'POST', '/api/auth/login', { body }).catch(async () => {
    const since = Date.now() - 1000;
    await call(dash, 'POST', '/api/auth/signup', { body });
    const token = await mailedToken(email, since, '/signup/confirm');
    return call(dash, 'POST', '/api/auth/signup/confirm', { body: { token, password: PASSWORD } });
  });
  return { id: res.json.data.developer.id, cookie: res.cookie, email };
}

async function setup() {
  const dash = process.env.CONTRACT_DASHBOARD_URL;
  const run = `${process.env.CONTRACT_ROLE}-${Date.now()}`;
  state.dashboardUrl = dash;
  state.publicUrl = process.env.CONTRACT_PUBLIC_URL;
  state.password = PASSWORD;
  state.operator = await developer(dash, 'operator@contract.test');
  state.admin = await developer(dash, `admin-${run}@contract.test`);
  state.invitee = await developer(dash, `invitee-${run}@contract.test`);
  state.member = await developer(dash, `member-${run}@contract.test`);
  state.passwordChanger = await developer(dash, `pw-${run}@contract.test`);
  await call(dash, 'PUT', `/api/admin/developers/${state.admin.id}/plan`, {
    body: { plan: 'pro' },
    cookie: state.operator.cookie,
  });
  const project = await call(dash, 'POST', '/api/projects', {
    body: { name: 'Contract' },
    cookie: state.admin.cookie,
  });
  state.projectId = project.json.data.project.id;
  state.publishableKey = project.json.data.keys.publishable;
  state.secretKey = project.json.data.keys.secret;
  const doomed = await call(dash, 'POST', '/api/projects', {
    body: { name: 'Doomed' },
    cookie: state.admin.cookie,
  });
  state.doomedProjectId = doomed.json.data.project.id;
  // A member joins by accepting the invitation mailed to them; two more invitations are pending,
  // one for the resend transaction, one for the revoke one, and the joiner's token is kept for the
  // accept transaction.
  await join(dash, state.member);
  state.joiner = await developer(dash, `joiner-${run}@contract.test`);
  state.joinerToken = await invite(dash, state.joiner.email);
  state.resendInvitationId = (await invite(dash, `resend-${run}@contract.test`, true)).id;
  state.revokeInvitationId = (await invite(dash, `revoke-${run}@contract.test`, true)).id;
  // A sign-up waiting for its confirmation, for the confirm transaction.
  const pendingEmail = `pending-${run}@contract.test`;
  const since = Date.now() - 1000;
  await call(dash, 'POST', '/api/auth/signup', { body: { email: pendingEmail, password: PASSWORD } });
  state.signupToken = await mailedToken(pendingEmail, since, '/signup/confirm');
  return state;
}

/** The token of the newest link to `page` mailed to `email` since `since`, from the stack's SMTP sink. */
function mailedToken(email, since, page = '/invitations/accept') {
  const dir = process.env.SMTP_SINK_DIR;
  if (!dir) throw new Error('SMTP_SINK_DIR is not set: start the test stack');
  return mail.mailedToken(dir, email, page, since);
}

/** Invites `email` to the fixture project; the mailed token, or the invitation when `only`. */
async function invite(dash, email, only = false) {
  const since = Date.now() - 1000;
  const res = await call(dash, 'POST', `/api/projects/${state.projectId}/invitations`, {
    body: { email },
    cookie: state.admin.cookie,
  });
  return only ? res.json.data.invitation : mailedToken(email, since);
}

async function join(dash, who) {
  const token = await invite(dash, who.email);
  await call(dash, 'POST', '/api/invitations/accept', { body: { token }, cookie: who.cookie });
}

module.exports = { state, setup, call };
