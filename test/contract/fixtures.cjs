// Fixtures for the contract tests, made over HTTP through the validating proxies before Dredd's
// transactions run (hooks.beforeAll). Both Dredd runs (public, then dashboard) share one platform
// database, so the operator (the first account of the installation) signs up once and logs in
// after that. Other hook files read `state`.
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
  await call(dash, 'POST', `/api/projects/${state.projectId}/members`, {
    body: { email: state.member.email },
    cookie: state.admin.cookie,
  });
  return state;
}

module.exports = { state, setup, call };
