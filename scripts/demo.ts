// `npm run demo`: on a running service, creates a demo developer, a project, a `todos` collection
// and a few documents, then prints the keys and a curl line that reads them. The URLs are those
// of `npm start`: PUBLIC_URL / DASHBOARD_URL, else http://localhost:<PUBLIC_PORT|DASHBOARD_PORT>
// (3000 / 3001), from the environment or .env.dev (scripts/demo.sh loads it).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';

const { signUpConfirmed } = createRequire(import.meta.url)('./mailed-link.cjs') as {
  signUpConfirmed: (
    post: (path: string, body: unknown) => Promise<unknown>,
    dir: string,
    email: string,
    password: string,
  ) => Promise<unknown>;
};

const base = (url: string | undefined, port: string | undefined, fallback: number) =>
  (url || `http://localhost:${port || fallback}`).replace(/\/+$/, '');
const publicUrl = base(process.env.PUBLIC_URL, process.env.PUBLIC_PORT, 3000);
const dashboardUrl = base(process.env.DASHBOARD_URL, process.env.DASHBOARD_PORT, 3001);

interface Answer {
  status: number;
  body: { data?: any; message?: string }; // eslint-disable-line @typescript-eslint/no-explicit-any
  cookie?: string;
}

async function call(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new Error(
      `cannot reach ${new URL(url).origin} (${String((err as Error).cause ?? (err as Error).message)}); ` +
        'start the service with `npm start`, or set PUBLIC_URL and DASHBOARD_URL',
      { cause: err },
    );
  }
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as Answer['body']) : {};
  if (res.status >= 300) throw new Error(`${method} ${url} -> ${res.status} ${parsed.message ?? text}`);
  return { status: res.status, body: parsed, cookie: res.headers.get('set-cookie')?.split(';')[0] };
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

async function main() {
  const run = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const email = `demo-${run}@example.com`;
  const password = randomBytes(12).toString('base64url');

  // Sign-up confirms the address by mail, whose link is read from a folder: the outbox a service
  // without SMTP_URL writes to, or (SMTP_SINK_DIR) the folder of the test stack's SMTP sink.
  const outbox = process.env.SMTP_URL
    ? process.env.SMTP_SINK_DIR
    : path.resolve(process.env.MAIL_OUTBOX_DIR || '.data/outbox');
  if (!outbox) {
    throw new Error(
      'the demo reads the sign-up link from the mail outbox (MAIL_OUTBOX_DIR): run it on a service ' +
        "without SMTP_URL, or set SMTP_SINK_DIR to the folder of an SMTP sink's messages",
    );
  }
  const signup = (await signUpConfirmed(
    (urlPath: string, body: unknown) => call(`${dashboardUrl}${urlPath}`, 'POST', body),
    outbox,
    email,
    password,
  )) as Answer;
  const session = { cookie: signup.cookie ?? '' };
  const created = await call(`${dashboardUrl}/api/projects`, 'POST', { name: 'Demo' }, session);
  const projectId = created.body.data.project.id as string;
  const keys = created.body.data.keys as { publishable: string; secret: string };

  await call(
    `${dashboardUrl}/api/projects/${projectId}/collections`,
    'POST',
    {
      name: 'todos',
      mode: 'schema',
      fields: [
        { name: 'title', type: 'String', required: true },
        { name: 'done', type: 'Boolean', default: false },
        { name: 'priority', type: 'Number' },
      ],
    },
    session,
  );
  const inserted = await call(
    `${publicUrl}/api/data/todos/bulk`,
    'POST',
    {
      documents: [
        { title: 'Read the README', done: true, priority: 1 },
        { title: 'Call the API with the publishable key', priority: 2 },
        { title: 'Sign an end user up', priority: 3 },
      ],
    },
    { 'x-api-key': keys.secret },
  );
  const count = (inserted.body.data as unknown[]).length;

  const curl = `curl -s ${shellQuote(`${publicUrl}/api/data/todos?sort=priority`)} -H ${shellQuote(`x-api-key: ${keys.publishable}`)}`;
  console.log(
    [
      `Demo data created on ${publicUrl} (dashboard ${dashboardUrl}):`,
      `  developer        ${email}  password ${password}`,
      `  project          ${projectId}  (Demo)`,
      `  collection       todos, ${count} documents`,
      `  publishable key  ${keys.publishable}`,
      `  secret key       ${keys.secret}`,
      '',
      'Read the documents with the publishable key:',
      curl,
    ].join('\n'),
  );
}

main().catch((err: Error) => {
  console.error(`demo: ${err.message}`);
  process.exit(1);
});
