// Credentials for loopback pages in the development profile, and the note left for the developer
// when a page sends credentials its project does not grant (src/http/cors.ts). The browser's own
// view of both is test/api/browser-sdk.test.ts.
import { expect } from 'chai';
import type { ApiResponse } from '../helpers/client.js';
import { startTestApps } from '../helpers/app.js';
import { authProject, keyed, useAuthSuite, type AuthProject } from '../helpers/user-auth.js';

const LOOPBACK = ['http://localhost:5173', 'http://127.0.0.1:5601', 'http://[::1]:8080', 'http://localhost'];
/** Not this machine's pages, or not over plain http: lookalikes get nothing. */
const NOT_LOOPBACK = [
  'https://localhost:5173',
  'http://localhost.example.com',
  'http://127.0.0.1.nip.io:5601',
  'http://127.0.0.2:5601',
  'https://app.example.com',
];
/** What Chromium sends on a cross-site request with `credentials: 'include'`. */
const CREDENTIALED = { 'sec-fetch-storage-access': 'none' };

const credentials = (res: ApiResponse) => res.headers.get('access-control-allow-credentials');
const schemaFrom = (p: AuthProject, origin: string, headers: Record<string, string> = {}) =>
  keyed(p).get('/api/schemas/users', { headers: { origin, ...headers } });

describe('CORS credentials for loopback pages in the development profile', () => {
  const { app, p } = useAuthSuite('cors_loopback_dev', { env: () => ({ NODE_ENV: 'development' }) });

  it('grants credentials to loopback pages of a project listing no origins, to nothing else', async () => {
    for (const origin of LOOPBACK) {
      const res = await schemaFrom(p, origin);
      expect(res.status, origin).to.equal(200);
      expect(credentials(res), origin).to.equal('true');
    }
    for (const origin of NOT_LOOPBACK) {
      const res = await schemaFrom(p, origin);
      expect(res.headers.get('access-control-allow-origin'), origin).to.equal(origin);
      expect(credentials(res), origin).to.equal(null);
    }
  });

  it('keeps a project that lists origins as it is: a loopback page it does not list is refused', async () => {
    const listed = await authProject(app, { settings: { allowedOrigins: ['https://app.example.com'] } });
    const res = await schemaFrom(listed, 'http://localhost:5173');
    expect(res.status).to.equal(403);
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
  });
});

describe('CORS credentials for loopback pages outside the development profile', () => {
  for (const profile of ['production', 'test']) {
    describe(profile, () => {
      const { p } = useAuthSuite(`cors_loopback_${profile}`, { env: () => ({ NODE_ENV: profile }) });
      it('grants them only to listed origins', async () => {
        for (const origin of LOOPBACK)
          expect(credentials(await schemaFrom(p, origin)), origin).to.equal(null);
      });
    });
  }
  describe('development with CORS_LOOPBACK_CREDENTIALS=false', () => {
    const { p } = useAuthSuite('cors_loopback_off', {
      env: () => ({ NODE_ENV: 'development', CORS_LOOPBACK_CREDENTIALS: 'false' }),
    });
    it('grants them only to listed origins', async () => {
      expect(credentials(await schemaFrom(p, 'http://localhost:5173'))).to.equal(null);
    });
  });
});

describe('a page that sends credentials its project does not grant', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let p: AuthProject;
  const PAGE = 'https://shop.example.com';
  const noted = async (project: AuthProject) => {
    const res = await apps.dashboard.client
      .with({ cookie: project.cookie })
      .get(`/api/projects/${project.project.id}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data.project.credentialsRefused as { origin: string; at: string }[];
  };
  /** The origin is written off the request: wait for it. */
  const waitNoted = async (project: AuthProject) => {
    for (let i = 0; i < 50 && (await noted(project)).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return noted(project);
  };
  before(async () => {
    apps = await startTestApps('cors_refused_note', {
      NODE_ENV: 'production',
      RATE_LIMIT_CLIENT_SHARE_PERCENT: '100',
    });
    p = await authProject(apps.public);
  });
  after(() => apps?.close());

  it('is logged with the sentence that fixes it, and its origin noted once on the project', async () => {
    const sent = [
      await schemaFrom(p, PAGE, CREDENTIALED),
      await schemaFrom(p, PAGE, { cookie: 'theme=dark' }),
      await schemaFrom(p, PAGE, CREDENTIALED),
    ];
    for (const res of sent) expect(credentials(res)).to.equal(null);
    const plain = await schemaFrom(p, 'https://plain.example.com');
    expect(plain.status).to.equal(200);
    // The Origin header is anyone's to write: text that is no origin is never shown as one.
    const forged = await schemaFrom(p, 'https://evil.example/call-us-at-555', CREDENTIALED);
    expect(forged.status).to.equal(200);

    await apps.public.services.requestLog.flush();
    const log = await apps.dashboard.client
      .with({ cookie: p.cookie })
      .get(`/api/projects/${p.project.id}/request-log?path=/api/schemas/users`);
    expect(log.status).to.equal(200);
    const notes = (log.body.data.entries as { note?: string }[]).map((e) => e.note ?? null);
    const fix = `A page on ${PAGE} sent credentials; add it to Allowed origins (project Settings) so the browser lets it read the answers.`;
    // Newest first: the forged one and the plain request (no credentials), then the three.
    expect(notes).to.deep.equal([null, null, fix, fix, fix]);
    // Three requests, one write (at most one per origin and 10 minutes).
    expect((await waitNoted(p)).map((n) => n.origin)).to.deep.equal([PAGE]);
  });

  it('is named on the project until the origin is listed, also when the project refused it outright', async () => {
    const listed = await authProject(apps.public, {
      settings: { allowedOrigins: ['https://app.example.com'] },
    });
    // A project that lists other origins refuses the page (403 without CORS headers): noted too.
    expect((await schemaFrom(listed, PAGE, CREDENTIALED)).status).to.equal(403);
    expect((await waitNoted(listed)).map((n) => n.origin)).to.deep.equal([PAGE]);

    // The dashboard's one-click add: the project's settings, with the origin appended.
    const added = await apps.dashboard.client
      .with({ cookie: listed.cookie })
      .patch(`/api/projects/${listed.project.id}`, {
        settings: { allowedOrigins: ['https://app.example.com', PAGE] },
      });
    expect(added.status, added.text).to.equal(200);
    expect(added.body.data.project.credentialsRefused).to.deep.equal([]);
    const res = await schemaFrom(listed, PAGE, CREDENTIALED);
    expect(res.status).to.equal(200);
    expect(credentials(res)).to.equal('true');
  });
});
