// Property-based contract run: schemathesis (PyPI, pinned in scripts/install.sh, installed into
// .stack/tools/schemathesis) over both OpenAPI documents as the roles publish them, with the
// complete configuration: every phase (examples, coverage, fuzzing, stateful), every check,
// positive and negative data, working credentials and a valid fixture for every path parameter by
// name, so requests reach the handlers. What is left out or allowed beyond the documents is in
// fuzz-rules.ts with its reason. Prints `fuzz: N passed, N failed`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoPath } from '../../src/lib/paths.js';
import { startTestApps } from '../helpers/app.js';
import { startFixtureAiProvider } from '../helpers/ai-provider.js';
import { randomToken, sha256 } from '../../src/lib/secrets.js';
import { SESSION_TTL_MS } from '../../src/services/accounts.js';
import { CHECKS_LEFT_OUT, CHECKS_OFF, EXCLUDED, STATE_RULES, type Role } from './fuzz-rules.js';
import { testEnv } from '../helpers/env.js';

const { signUpConfirmed } = createRequire(import.meta.url)('../../scripts/mailed-link.cjs') as {
  signUpConfirmed: (
    post: (path: string, body: unknown) => Promise<unknown>,
    dir: string | undefined,
    email: string,
    password: string,
  ) => Promise<unknown>;
};

const ST = process.env.SCHEMATHESIS_BIN ?? repoPath('.stack', 'tools', 'schemathesis', 'bin', 'st');
// Test cases per operation and mode in the fuzzing phase (the coverage phase adds its own). With
// 15 the whole run (both documents, every phase) takes about 3.5 minutes on the shared 2-core
// machine (212 s at a load average of 6): keep it within the test budget (6 to 8 minutes).
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 15);
// Wall-clock limit per role, a backstop against a hang: the run is killed and fails after it.
// (schemathesis's own --max-time is a budget to fill, not a limit: fuzzing repeats until it ends.)
const TIMEOUT_S = Number(process.env.FUZZ_TIMEOUT_S ?? 600);
// Collections deleted by the run, one per role (the public API's schema delete, the dashboard's).
const DOOMED_COLLECTIONS = ['doomedpublic', 'doomeddashboard'] as const;
// Seconds each realtime stream is read before the client closes it.
const STREAM_SECONDS = 2;
// Spare sessions for logOutDeveloper: more than the run calls it (every phase, every check).
const SPARE_SESSIONS = 300;

interface Answer {
  status: number;
  json: { data?: Record<string, unknown> } & Record<string, unknown>;
  cookie?: string;
}

async function call(
  base: string,
  method: string,
  urlPath: string,
  opts: { body?: unknown; cookie?: string; key?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.key) headers['x-api-key'] = opts.key;
  const res = await fetch(base + urlPath, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`fixture ${method} ${urlPath} -> ${res.status} ${text}`);
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  return { status: res.status, json: text ? JSON.parse(text) : {}, cookie };
}

const dataOf = (a: Answer) => a.json.data as Record<string, any>;

/** Optional fixtures: a failure leaves the parameter to the generator (and is reported). */
async function optional<T>(what: string, make: () => Promise<T>): Promise<T | undefined> {
  try {
    return await make();
  } catch (err) {
    console.error(`fuzz: fixture ${what} not made: ${(err as Error).message}`);
    return undefined;
  }
}

// Not any password of the documents' examples: the examples phase sends those, and a password
// change that succeeds ends every other session of the account, the run's own among them.
const PASSWORD = `fuzz ${randomBytes(12).toString('hex')}`;
const OPERATOR = 'operator@fuzz.test';
const END_USER = 'ada@fuzz.test';

/**
 * A project with a flexible `posts` collection, a `users` collection, documents, end users, a
 * webhook with a delivery, a stored file, an AI session and pending invitations: one valid value for every path
 * parameter of both documents, and a second ("doomed") value for the operations that destroy it.
 */
async function fixtures(dash: string, pub: string) {
  const signup = (await signUpConfirmed(
    (urlPath: string, body: unknown) => call(dash, 'POST', urlPath, { body }),
    testEnv.SMTP_SINK_DIR,
    OPERATOR,
    PASSWORD,
  )) as Answer;
  const cookie = signup.cookie!;
  const operatorId = dataOf(signup).developer.id as string;
  await call(dash, 'PUT', `/api/admin/developers/${operatorId}/plan`, { body: { plan: 'pro' }, cookie });
  const project = dataOf(await call(dash, 'POST', '/api/projects', { body: { name: 'Fuzz' }, cookie }));
  const projectId = project.project.id as string;
  const doomed = dataOf(await call(dash, 'POST', '/api/projects', { body: { name: 'Doomed' }, cookie }));
  // The fuzzer sends far more than a plan's requests per minute; a 429 would hide the handlers.
  await call(dash, 'PUT', `/api/admin/projects/${projectId}/limits`, {
    body: { limits: { requestsPerMinute: 1_000_000 } },
    cookie,
  });
  for (const name of ['posts', ...DOOMED_COLLECTIONS]) {
    await call(dash, 'POST', `/api/projects/${projectId}/collections`, {
      body: { name, fields: [{ name: 'title', type: 'String' }] },
      cookie,
    });
  }
  await call(dash, 'POST', `/api/projects/${projectId}/collections`, {
    body: { name: 'users', fields: [{ name: 'email', type: 'String', required: true, unique: true }] },
    cookie,
  });
  const keys = project.keys as { publishable: string; secret: string };
  const insert = async () =>
    dataOf(await call(pub, 'POST', '/api/data/posts', { body: { title: 'hello' }, key: keys.secret }))
      ._id as string;
  const endUser = async (email: string) =>
    dataOf(
      await call(pub, 'POST', '/api/userAuth/signup', {
        body: { email, password: PASSWORD },
        key: keys.publishable,
      }),
    );
  const user = await endUser(END_USER);
  // Per role: an end user to disable, enable, sign out and delete.
  const doomedUsers = [await endUser('doomed1@fuzz.test'), await endUser('doomed2@fuzz.test')];
  const webhookId = await optional('webhook', async () => {
    const hook = dataOf(
      await call(dash, 'POST', `/api/projects/${projectId}/webhooks`, {
        body: { url: 'https://93.184.215.14/in', events: ['document.created'] },
        cookie,
      }),
    );
    return hook.webhook.id as string;
  });
  const documentId = await insert();
  // Per role: a document to delete, and one in the trash to restore.
  const doomedDocuments = [await insert(), await insert()];
  const trashed = [await insert(), await insert()];
  for (const id of trashed) await call(pub, 'DELETE', `/api/data/posts/${id}`, { key: keys.secret });
  const deliveryId = await optional('webhook delivery', async () => {
    const list = dataOf(
      await call(dash, 'GET', `/api/projects/${projectId}/webhooks/${webhookId}/deliveries`, { cookie }),
    );
    const first = (list.deliveries as { id: string }[])[0];
    if (!first) throw new Error('no delivery listed');
    return first.id;
  });
  const fileName = await optional('file', async () => {
    const content = Buffer.from('fuzz upload');
    const ticket = dataOf(
      await call(pub, 'POST', '/api/storage/upload-request', {
        body: { filename: 'fuzz.txt', contentType: 'text/plain', size: content.length },
        key: keys.secret,
      }),
    );
    const target = new URL(ticket.signedUrl as string);
    const put = await fetch(pub + target.pathname + target.search, {
      method: 'PUT',
      body: content,
      headers: { 'content-type': 'text/plain' },
    });
    if (!put.ok) throw new Error(`PUT ${target.pathname} -> ${put.status}`);
    await call(pub, 'POST', '/api/storage/upload-confirm', {
      body: { filePath: ticket.filePath, size: content.length },
      key: keys.secret,
    });
    return decodeURIComponent(target.pathname.split('/').pop()!);
  });
  const aiSession = () =>
    optional('AI session', async () => {
      const session = dataOf(
        await call(dash, 'POST', `/api/projects/${projectId}/ai/collection-sessions`, {
          body: { message: 'A collection of books with a title' },
          cookie,
        }),
      );
      return session.session.id as string;
    });
  const sessionId = await aiSession();
  // Pending invitations: one to resend, one to revoke.
  const invite = async (email: string) =>
    dataOf(await call(dash, 'POST', `/api/projects/${projectId}/invitations`, { body: { email }, cookie }))
      .invitation.id as string;
  const invitationId = await invite('invited@fuzz.test');
  const doomedInvitationId = await invite('revoked@fuzz.test');
  return {
    cookie,
    operatorId,
    projectId,
    doomedProjectId: doomed.project.id as string,
    keys,
    documentId,
    doomedDocuments,
    trashed,
    userId: user.user._id as string,
    doomedUserIds: doomedUsers.map((u) => u.user._id as string),
    accessToken: user.accessToken as string,
    webhookId,
    deliveryId,
    fileName,
    sessionId,
    invitationId,
    doomedInvitationId,
  };
}

type Fixtures = Awaited<ReturnType<typeof fixtures>>;

/** positive_data_acceptance's own default (schemathesis 4.32.5), extended by STATE_RULES. */
const POSITIVE_STATUSES = ['2xx', '3xx', '401', '403', '404', '409', '429', '5xx'];
/** schemathesis's own list for refused invalid data, and the 413 of a body over the limit. */
const NEGATIVE_STATUSES = [
  '400',
  '401',
  '403',
  '404',
  '405',
  '406',
  '409',
  '413',
  '415',
  '422',
  '428',
  '429',
  '5xx',
];

/**
 * Sessions of the operator made directly in the platform database, one per logOutDeveloper call
 * (fuzz_hooks.py swaps one in): the run's own session is never the one logged out.
 */
async function spareSessions(f: Fixtures, count: number): Promise<string[]> {
  const tokens = Array.from({ length: count }, () => randomToken());
  for (const token of tokens)
    await apps.dashboard.services.repos.developers.createSession(sha256(token), f.operatorId, SESSION_TTL_MS);
  return tokens;
}

/**
 * The complete configuration: schemathesis's defaults run every phase, every check (all but
 * `max_response_time`, see fuzz-rules.ts) and both positive and negative data; this adds the
 * credentials, a value for every path parameter by name, and the rules of fuzz-rules.ts.
 */
function config(role: Role, f: Fixtures): string {
  const q = JSON.stringify;
  const param = (name: string, value: string | undefined) =>
    value ? [`${q(`path.${name}`)} = ${q(value)}`] : [];
  // Path parameters of some operations only: those that destroy their target get a target of
  // their own, so the rest keep theirs.
  const paramsOf = (ids: string[], params: Record<string, string>) => [
    `[[operations]]`,
    `include-operation-id = ${q(ids)}`,
    `parameters = { ${Object.entries(params)
      .map(([k, v]) => `${q(`path.${k}`)} = ${q(v)}`)
      .join(', ')} }`,
  ];
  // A state rule lets positive_data_acceptance accept its statuses besides the default ones.
  const stateRules = Object.entries(STATE_RULES[role]).flatMap(([id, rule]) => [
    `[[operations]]`,
    `include-operation-id = ${q(id)}`,
    `checks.positive_data_acceptance.expected-statuses = ${q([...POSITIVE_STATUSES, ...rule.statuses.map(String)])}`,
  ]);
  const checksOff = Object.entries(CHECKS_OFF[role]).flatMap(([id, rule]) => [
    `[[operations]]`,
    `include-operation-id = ${q(id)}`,
    ...rule.checks.map((check) => `checks.${check}.enabled = false`),
  ]);
  const common = [
    `workers = 1`,
    `max-redirects = 0`,
    `request-timeout = 30`,
    // An event stream stays open: schemathesis reads it until the timeout passes (not an error).
    // The public API's /api/realtime/... and the members' .../collections/{name}/stream.
    `[[operations]]`,
    `include-path-regex = "/realtime/|/stream$"`,
    `request-timeout = ${STREAM_SECONDS}`,
    `[generation]`,
    `max-examples = ${MAX_EXAMPLES}`,
    // A body over BODY_LIMIT_BYTES is refused with a JSON 413 before it is read, whatever it holds.
    `[checks.negative_data_rejection]`,
    `expected-statuses = ${q(NEGATIVE_STATUSES)}`,
    `[parameters]`,
    ...param('projectId', f.projectId),
    ...param('collectionName', 'posts'),
    ...param('id', f.documentId),
    ...param('userId', f.userId),
    ...param('developerId', f.operatorId),
    ...param('webhookId', f.webhookId),
    ...param('deliveryId', f.deliveryId),
    ...param('fileName', f.fileName),
    ...param('invitationId', f.invitationId),
    ...param('username', 'ada'),
  ];
  if (role === 'public') {
    return [
      ...common,
      `[auth.openapi.apiKey]`,
      `api_key = ${q(f.keys.secret)}`,
      `[auth.openapi.apiKeyQuery]`,
      `api_key = ${q(f.keys.publishable)}`,
      `[auth.openapi.bearerAuth]`,
      `bearer = ${q(f.accessToken)}`,
      ...paramsOf(['deleteDocument'], { id: f.doomedDocuments[0]! }),
      ...paramsOf(['restoreDocument'], { id: f.trashed[0]! }),
      ...paramsOf(['deleteCollectionSchema'], { collectionName: DOOMED_COLLECTIONS[0] }),
      ...paramsOf(['deleteUser', 'disableUser', 'enableUser', 'revokeUserSessions'], {
        userId: f.doomedUserIds[0]!,
      }),
      ...stateRules,
      ...checksOff,
    ].join('\n');
  }
  return [
    ...common,
    `[auth.openapi.sessionCookie]`,
    `api_key = ${q(f.cookie.replace(/^baas_session=/, ''))}`,
    ...paramsOf(['deleteProject'], { projectId: f.doomedProjectId }),
    ...paramsOf(['deleteCollection'], { projectId: f.projectId, collectionName: DOOMED_COLLECTIONS[1] }),
    ...paramsOf(['restoreProjectDocument'], { projectId: f.projectId, id: f.trashed[1]! }),
    ...paramsOf(['revokeProjectInvitation'], {
      projectId: f.projectId,
      invitationId: f.doomedInvitationId,
    }),
    // Only messages get the fixture session: confirming ends a session, and the stateful phase
    // confirms the sessions it creates through the documents' links.
    ...(f.sessionId
      ? paramsOf(['sendAiCollectionMessage'], { projectId: f.projectId, sessionId: f.sessionId })
      : []),
    ...paramsOf(['deleteProjectDocument'], { projectId: f.projectId, id: f.doomedDocuments[1]! }),
    ...paramsOf(
      ['deleteProjectUser', 'disableProjectUser', 'enableProjectUser', 'revokeProjectUserSessions'],
      {
        projectId: f.projectId,
        userId: f.doomedUserIds[1]!,
      },
    ),
    ...stateRules,
    ...checksOff,
  ].join('\n');
}

function run(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve) => {
    // cwd: schemathesis keeps a cache folder (.schemathesis) in its working directory.
    const child = spawn(ST, args, { env, cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => {
      console.error(`schemathesis ran over ${TIMEOUT_S} s; stopped`);
      child.kill('SIGTERM');
    }, TIMEOUT_S * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

if (!existsSync(ST)) {
  console.error(`schemathesis not found at ${ST}: run bash scripts/install.sh`);
  console.log('\nfuzz: 0 passed, 1 failed');
  process.exit(1);
}

const workDir = mkdtempSync(path.join(tmpdir(), 'baas-fuzz-'));
// The AI tools answer from an OpenAI-compatible server on loopback (a provider out of reach is a
// 502, which the run would count as a server error).
const aiProvider = await startFixtureAiProvider();
const apps = await startTestApps('fuzz', {
  ...aiProvider.env,
  S3_BUCKET: '',
  STORAGE_DIR: path.join(workDir, 'storage'),
  RATE_LIMIT_IP_PER_MINUTE: '0',
  // Fuzzing signs developers up from one address far more often than a person would.
  DEVELOPER_SIGNUPS_PER_HOUR: '1000000',
  // ...and pings and redelivers one webhook far more than 30 times a minute (429s would hide
  // the handlers; the limit is test/api/webhook-lanes.test.ts's).
  WEBHOOK_MANUAL_PER_MINUTE: '100000',
});
let passed = 0;
let failed = 0;
try {
  const f = await fixtures(apps.dashboard.url, apps.public.url);
  const spareFile = path.join(workDir, 'spare-sessions.json');
  writeFileSync(spareFile, JSON.stringify(await spareSessions(f, SPARE_SESSIONS)));
  const roles = (process.env.FUZZ_ROLES ?? 'public,dashboard').split(',') as Role[];
  for (const role of roles) {
    const started = Date.now();
    const configFile = path.join(workDir, `${role}.toml`);
    writeFileSync(configFile, config(role, f));
    if (process.env.FUZZ_PRINT_CONFIG) console.log(config(role, f));
    const excluded = Object.keys(EXCLUDED[role]).flatMap((id) => ['--exclude-operation-id', id]);
    console.log(`\n== fuzz: ${role} API (${apps[role].url}) ==`);
    for (const [what, reason] of Object.entries({ ...EXCLUDED[role], ...CHECKS_LEFT_OUT }))
      console.log(`left out: ${what}: ${reason}`);
    for (const [id, rule] of Object.entries(CHECKS_OFF[role]))
      console.log(`left out: ${rule.checks.join(', ')} on ${id}: ${rule.reason}`);
    const code = await run(
      [
        '--config-file',
        configFile,
        '--no-color',
        'run',
        `${apps[role].url}/openapi.json`,
        '--url',
        apps[role].url,
        '--seed',
        process.env.FUZZ_SEED ?? '1',
        ...excluded,
        // Extra arguments for a local investigation, e.g. FUZZ_ARGS='--include-operation-id getDocument'.
        ...(process.env.FUZZ_ARGS?.split(' ').filter(Boolean) ?? []),
      ],
      {
        ...process.env,
        HOME: workDir,
        SCHEMATHESIS_HOOKS: repoPath('test', 'contract', 'fuzz_hooks.py'),
        FUZZ_SPARE_SESSIONS: spareFile,
      },
      workDir,
    );
    console.log(`fuzz: ${role} finished in ${Math.round((Date.now() - started) / 1000)} s (exit ${code})`);
    if (code === 0) passed += 1;
    else failed += 1;
    // Whatever the run did, the project's size counter must still be what is really stored. The
    // public app's read settles its own quota leases; the dashboard's are settled first.
    await apps.dashboard.services.quota.settle(f.projectId);
    const counted = (await apps.public.services.repos.projects.usage(f.projectId)).databaseUsed;
    const stored = await apps.public.services.documents.databaseSize(f.projectId);
    if (counted === stored) passed += 1;
    else {
      failed += 1;
      console.error(`fuzz: ${role}: databaseUsed is ${counted}, the documents take ${stored} bytes`);
    }
  }
} finally {
  await apps.close();
  await aiProvider.provider.close();
  rmSync(workDir, { recursive: true, force: true });
}
console.log(`\nfuzz: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
