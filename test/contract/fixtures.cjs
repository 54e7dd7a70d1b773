// Fixtures for the contract tests, made over HTTP through the validating proxies before Dredd's
// transactions run (hooks.beforeAll). Both Dredd runs (public, then dashboard) share one platform
// database, so the operator (the first account of the installation) signs up once and logs in
// after that. Other hook files read `state`.
const { readdir, readFile } = require('node:fs/promises');
const nodePath = require('node:path');

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
 * Signs up, then logs in, and returns { id, cookie }. A sign-up with a taken address answers like
 * a new one (a decoy id and a cookie that opens no session), so the id and cookie are the login's.
 */
async function developer(dash, email) {
  await call(dash, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } });
  const res = await call(dash, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
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
  return state;
}

/** The token of the newest invitation link mailed to `email`, from the stack's SMTP sink. */
async function mailedToken(email, after) {
  const dir = process.env.SMTP_SINK_DIR;
  if (!dir) throw new Error('SMTP_SINK_DIR is not set: start the test stack');
  for (let i = 0; i < 100; i++) {
    const names = (await readdir(dir).catch(() => [])).filter((n) => n.endsWith('.json')).sort();
    for (const name of names.reverse()) {
      const message = JSON.parse(await readFile(nodePath.join(dir, name), 'utf8'));
      if (!message.to.includes(email) || Date.parse(message.receivedAt) < after) continue;
      const text = message.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const match = /\/invitations\/accept\?token=([\w-]+)/.exec(text);
      if (match) return match[1];
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no invitation mail for ${email}`);
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
