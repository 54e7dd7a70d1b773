// The development log on a terminal (LOG_FORMAT=pretty, or auto on a TTY): one readable line per
// request, pino-pretty for the rest, and the start banner with the URLs and each embedded default
// next to the setting that replaces it. JSON stays the format when stdout is not a terminal.
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { repoPath } from '../../src/lib/paths.js';
import { prettyDestination, resolveLogFormat } from '../../src/lib/logger.js';
import { startBanner, type BannerInput } from '../../src/lib/start-banner.js';

/** Runs a script that logs through createLogger in a process of its own; its stdout. */
function stdoutOf(script: string, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoPath(),
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  expect(result.stderr).to.equal('');
  return result.stdout;
}

describe('development log on a terminal', function () {
  this.timeout(20_000);

  it('chooses pretty on a terminal and JSON on a pipe, unless told', () => {
    expect(resolveLogFormat('auto', true)).to.equal('pretty');
    expect(resolveLogFormat('auto', false)).to.equal('json');
    expect(resolveLogFormat('json', true)).to.equal('json');
    expect(resolveLogFormat('pretty', false)).to.equal('pretty');
  });

  it('writes a request as one line: time, method, path, status, ms', () => {
    const lines: string[] = [];
    const out = prettyDestination(false, (text) => lines.push(text));
    const time = '2026-11-28T10:04:05.123Z';
    out.write(
      `${JSON.stringify({ level: 30, time, service: 'baas', requestId: 'r1', method: 'GET', path: '/api/data/todos', status: 404, ms: 3.17, msg: 'request' })}\n`,
    );
    const local = new Date(time).toTimeString().slice(0, 8);
    expect(lines).to.deep.equal([`${local} GET /api/data/todos 404 3.17 ms\n`]);
  });

  it('writes other events with their level, message and fields, without pid or hostname', () => {
    const text = stdoutOf(
      `import { createLogger } from './src/lib/logger.ts'; const log = createLogger('info', { service: 'baas' }, 'pretty');
       log.warn({ projectId: 'p1' }, 'over budget'); log.info({ requestId: 'r', method: 'POST', path: '/x', status: 201, ms: 12.5 }, 'request');`,
    );
    const [warn, request] = text.split('\n');
    expect(warn).to.match(/^\[\d\d:\d\d:\d\d\] WARN: over budget \{"projectId":"p1"\}$/);
    expect(text).not.to.match(/pid|hostname|"service"/);
    expect(request).to.match(/^\d\d:\d\d:\d\d POST \/x 201 12.5 ms$/);
  });

  it('stays JSON lines when asked, as on a pipe', () => {
    const text = stdoutOf(
      `import { createLogger } from './src/lib/logger.ts'; createLogger('info', {}, 'json').info({ method: 'GET', path: '/', status: 200, ms: 1 }, 'request');`,
    );
    expect(JSON.parse(text)).to.include({ msg: 'request', method: 'GET', status: 200 });
  });

  it('lists the URLs and each embedded default with the setting that replaces it', () => {
    const input: BannerInput = {
      node: 'v24.21.0',
      urls: { dashboard: 'http://localhost:3001', public: 'http://localhost:3000' },
      worker: true,
      embeddedDatabase: true,
      s3: false,
      storageDir: '.data/storage',
      mailOutboxDir: '.data/outbox',
    };
    const banner = startBanner(input).split('\n');
    expect(banner[0]).to.equal('mongobaas is running (dashboard, public, worker) on Node.js v24.21.0');
    expect(banner).to.have.length(7);
    expect(banner[1]).to.match(
      /^ {2}dashboard {3}http:\/\/localhost:3001 +API reference http:\/\/localhost:3001\/docs$/,
    );
    expect(banner.slice(3).map((line) => line.trim().split(/\s{2,}/))).to.deep.equal([
      [
        'database',
        'embedded mongo-java-server, for development and small data (docs/scale.md)',
        'set MONGODB_URI to replace',
      ],
      ['cache', 'in-process memory, a single instance only', 'set REDIS_URL to replace'],
      ['storage', 'local files in .data/storage', 'set S3_BUCKET and S3_* to replace'],
      ['mail', 'written to the folder .data/outbox', 'set SMTP_URL to replace'],
    ]);
    const configured = startBanner({
      ...input,
      embeddedDatabase: false,
      redisUrl: 'redis://r',
      s3: true,
      smtpUrl: 'smtp://m',
    });
    expect(configured.split('\n')).to.have.length(3);
  });

  it('says when the development profile accepts loopback webhook and HTTP hook targets', () => {
    const input: BannerInput = {
      node: 'v24.21.0',
      urls: { dashboard: 'http://localhost:3001' },
      worker: true,
      embeddedDatabase: false,
      redisUrl: 'redis://r',
      s3: true,
      smtpUrl: 'smtp://m',
      storageDir: '.data/storage',
      mailOutboxDir: '.data/outbox',
      loopbackTargets: true,
    };
    const lines = startBanner(input).split('\n');
    expect(
      lines
        .at(-1)!
        .trim()
        .split(/\s{2,}/),
    ).to.deep.equal([
      'webhooks',
      'development profile: http://localhost and loopback targets accepted (webhooks, HTTP hooks)',
      'set WEBHOOK_ALLOW_LOOPBACK=false to replace',
    ]);
    expect(startBanner({ ...input, loopbackTargets: false })).not.to.include('webhooks');
  });

  it('announces the development profile putting new accounts on the highest plan', () => {
    const input: BannerInput = {
      node: 'v24.0.0',
      urls: { dashboard: 'http://localhost:3001' },
      worker: true,
      embeddedDatabase: false,
      redisUrl: 'redis://r',
      s3: true,
      smtpUrl: 'smtp://m',
      storageDir: '.data/storage',
      mailOutboxDir: '.data/outbox',
      profilePlan: 'Pro',
    };
    expect(
      startBanner(input)
        .split('\n')
        .at(-1)!
        .trim()
        .split(/\s{2,}/),
    ).to.deep.equal([
      'plans',
      'development profile: new accounts on Pro, the highest plan; yours has no plan limits',
      'set DEFAULT_PLAN or PLANS_FILE to replace',
    ]);
    expect(startBanner({ ...input, profilePlan: undefined })).not.to.include('plans');
  });
});
