// Property-based contract run: schemathesis (PyPI, pinned in scripts/install.sh, installed into
// .stack/tools/schemathesis) generates requests for every operation of both OpenAPI documents,
// read from the roles' published /openapi.json, and checks each answer: no 5xx, a documented
// status, the documented content type and headers, a body valid against the response schema.
// It runs with working credentials (the secret key and an end user's token on the public API, the
// operator's session on the dashboard) and with fixture ids as path parameters, so requests get
// past authentication and reach the handlers. Prints `fuzz: N passed, N failed` (one per role).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoPath } from '../../src/lib/paths.js';
import { startTestApps } from '../helpers/app.js';
import { startFixtureAiProvider } from '../helpers/ai-provider.js';

const ST = process.env.SCHEMATHESIS_BIN ?? repoPath('.stack', 'tools', 'schemathesis', 'bin', 'st');
// Test cases per operation in the fuzzing phase (the coverage phase adds its own boundary cases).
// 95 operations x this number must stay within a few minutes on a 2-core machine.
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 5);
// Wall-clock limit per role, a backstop against a hang: the run is killed and fails after it.
// (schemathesis's own --max-time is a budget to fill, not a limit: fuzzing repeats until it ends.)
const TIMEOUT_S = Number(process.env.FUZZ_TIMEOUT_S ?? 240);

/**
 * Operations left out, each with its reason. Everything else in both documents is fuzzed.
 * Keep this list in step with the README ("Contract tests").
 */
const EXCLUDED: Record<'public' | 'dashboard', Record<string, string>> = {
  public: {
    // A 302 to the OAuth provider (or to the app's redirectUrl): the answer is a redirect whose
    // target is outside the API, so schemathesis would follow it off the stack. Covered by
    // test/api/user-auth-social.test.ts against oauth2-mock-server.
    startSocialLogin: 'redirects to the OAuth provider; covered by user-auth-social.test.ts',
    completeSocialLogin: 'redirects to the app; covered by user-auth-social.test.ts',
  },
  dashboard: {
    // It ends the session the whole run authenticates with; every later request would be a 401.
    logOutDeveloper: 'ends the session the run uses; covered by accounts.test.ts and Dredd',
  },
};

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

/** A project with a flexible `posts` collection, a `users` collection, one document and one end user. */
async function fixtures(dash: string, pub: string) {
  const password = 'correct horse battery staple';
  const signup = await call(dash, 'POST', '/api/auth/signup', {
    body: { email: 'operator@fuzz.test', password },
  });
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
  await call(dash, 'POST', `/api/projects/${projectId}/collections`, {
    body: { name: 'posts', fields: [{ name: 'title', type: 'String' }] },
    cookie,
  });
  await call(dash, 'POST', `/api/projects/${projectId}/collections`, {
    body: { name: 'users', fields: [{ name: 'email', type: 'String', required: true, unique: true }] },
    cookie,
  });
  const keys = project.keys as { publishable: string; secret: string };
  const doc = dataOf(
    await call(pub, 'POST', '/api/data/posts', { body: { title: 'hello' }, key: keys.secret }),
  );
  const user = dataOf(
    await call(pub, 'POST', '/api/userAuth/signup', {
      body: { email: 'ada@fuzz.test', password },
      key: keys.publishable,
    }),
  );
  return {
    cookie,
    operatorId,
    projectId,
    doomedProjectId: doomed.project.id as string,
    keys,
    documentId: doc._id as string,
    userId: user.user._id as string,
    accessToken: user.accessToken as string,
  };
}

type Fixtures = Awaited<ReturnType<typeof fixtures>>;

function config(role: 'public' | 'dashboard', f: Fixtures): string {
  const q = JSON.stringify;
  const common = [
    `workers = 1`,
    `max-redirects = 0`,
    `request-timeout = 15`,
    // The coverage phase (boundary values of every parameter, deterministic) takes about 100 s per
    // document here: over budget. Examples, random generation and stateful links run.
    `[phases.coverage]`,
    `enabled = false`,
    `[generation]`,
    `max-examples = ${MAX_EXAMPLES}`,
    `[checks]`,
    `enabled = false`,
    `not_a_server_error.enabled = true`,
    `status_code_conformance.enabled = true`,
    `content_type_conformance.enabled = true`,
    `response_schema_conformance.enabled = true`,
    `response_headers_conformance.enabled = true`,
  ];
  if (role === 'public') {
    return [
      ...common,
      `[parameters]`,
      `collectionName = ${q('posts')}`,
      `[auth.openapi.apiKey]`,
      `api_key = ${q(f.keys.secret)}`,
      `[auth.openapi.apiKeyQuery]`,
      `api_key = ${q(f.keys.publishable)}`,
      `[auth.openapi.bearerAuth]`,
      `bearer = ${q(f.accessToken)}`,
    ].join('\n');
  }
  return [
    ...common,
    `[parameters]`,
    `projectId = ${q(f.projectId)}`,
    `[auth.openapi.sessionCookie]`,
    `api_key = ${q(f.cookie.replace(/^baas_session=/, ''))}`,
    `[[operations]]`,
    `include-operation-id = "deleteProject"`,
    `parameters = { projectId = ${q(f.doomedProjectId)} }`,
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
});
let passed = 0;
let failed = 0;
try {
  const f = await fixtures(apps.dashboard.url, apps.public.url);
  const roles = (process.env.FUZZ_ROLES ?? 'public,dashboard').split(',') as ('public' | 'dashboard')[];
  for (const role of roles) {
    const started = Date.now();
    const configFile = path.join(workDir, `${role}.toml`);
    writeFileSync(configFile, config(role, f));
    const excluded = Object.keys(EXCLUDED[role]).flatMap((id) => ['--exclude-operation-id', id]);
    console.log(`\n== fuzz: ${role} API (${apps[role].url}) ==`);
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
