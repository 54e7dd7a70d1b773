// The operator's view of the installation: what runs (engine, cache, object store, mail) with the
// setting that changes each, the profile, health, the processes seen (src/services/heartbeat.ts),
// the worker's jobs, and in the development
// profile the mail outbox folder, read so that a newcomer never opens a file to confirm an account.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { badRequest } from '../http/errors.js';
import type { Config } from '../config.js';
import type { JobRunsRepo } from '../db/job-runs.js';
import type { InstancesRepo } from '../db/instances.js';
import { GONE_AFTER_MS } from './heartbeat.js';
import type { HealthReport } from './health.js';
import type { RequestContext } from './context.js';
import { requireOperator } from './operator.js';

/** The worker's leased jobs (src/jobs/worker.ts) and when each runs, in words. */
export const WORKER_JOBS: readonly { name: string; schedule: string }[] = [
  { name: 'ttl-sweep', schedule: 'every minute' },
  { name: 'function-schedule', schedule: 'every minute' },
  { name: 'upload-cleanup', schedule: 'every 5 minutes' },
  { name: 'import-sweep', schedule: 'every 5 minutes' },
  { name: 'expiry-sweep', schedule: 'every 15 minutes' },
  { name: 'usage-rollup', schedule: 'hourly' },
  { name: 'trash-purge', schedule: 'hourly' },
  { name: 'backup-schedule', schedule: 'hourly' },
  { name: 'usage-recount', schedule: 'daily' },
  { name: 'usage-month-close', schedule: 'daily, closing the previous month' },
];

/** The processes the overview lists: those seen within the last hour, at most this many. */
const INSTANCES_SHOWN = 50;
const INSTANCES_WINDOW_MS = 3600_000;

/** Mails the outbox page lists at most, newest first. */
const OUTBOX_LIMIT = 100;
const OUTBOX_FILE = /^[0-9]+-[0-9]{6}-[0-9a-f]{8}\.json$/;
const LINK = /https?:\/\/[^\s<>"')]+/g;

interface OutboxRecord {
  id: string;
  createdAt: string;
  from: string;
  to: string[];
  subject: string;
  text: string | null;
}

export interface InstallationDeps {
  config: Config;
  version: string;
  health: () => Promise<HealthReport>;
  jobRuns: JobRunsRepo;
  instances: Pick<InstancesRepo, 'seenSince'>;
}

export function installationService({ config, version, health, jobRuns, instances }: InstallationDeps) {
  const outboxDir = path.resolve(config.mailOutboxDir);
  const smtpHost = config.smtpUrl ? new URL(config.smtpUrl).host : '';
  const parts = [
    config.embeddedDatabase
      ? {
          name: 'engine',
          now: 'embedded mongo-java-server (development and small data)',
          setting: 'MONGODB_URI',
        }
      : { name: 'engine', now: 'MongoDB', setting: 'MONGODB_URI' },
    config.redisUrl
      ? { name: 'cache', now: 'Redis', setting: 'REDIS_URL' }
      : { name: 'cache', now: 'in-process memory (a single instance only)', setting: 'REDIS_URL' },
    config.s3
      ? { name: 'object store', now: `S3 bucket ${config.s3.bucket}`, setting: 'S3_BUCKET and S3_*' }
      : { name: 'object store', now: `local files in ${config.storageDir}`, setting: 'S3_BUCKET and S3_*' },
    config.smtpUrl
      ? { name: 'mail', now: `SMTP server ${smtpHost}`, setting: 'SMTP_URL' }
      : { name: 'mail', now: `written to the folder ${config.mailOutboxDir}`, setting: 'SMTP_URL' },
    {
      name: 'plans',
      now: config.plans.file
        ? `from the file ${config.plans.file}; new accounts on ${config.plans.defaultPlan}`
        : `Free and Pro with the limits of the Plans page; new accounts on ${config.plans.defaultPlan}`,
      setting: 'PLANS_FILE and DEFAULT_PLAN',
    },
  ];

  function requireOutbox() {
    if (config.smtpUrl)
      throw badRequest(
        `Mail is sent through the SMTP server ${smtpHost} (SMTP_URL): there is no outbox folder to read`,
        undefined,
        'NO_OUTBOX',
      );
  }

  async function readMail(file: string): Promise<OutboxRecord | undefined> {
    try {
      const record = JSON.parse(await readFile(path.join(outboxDir, file), 'utf8')) as OutboxRecord;
      return { ...record, id: file.slice(0, -'.json'.length) };
    } catch {
      return undefined; // removed meanwhile, or not a mail this service wrote
    }
  }

  return {
    outboxFolder: config.mailOutboxDir,

    async overview(ctx: RequestContext) {
      requireOperator(ctx);
      const now = Date.now();
      const [report, runs, seen] = await Promise.all([
        health(),
        jobRuns.latest(WORKER_JOBS.map((j) => j.name)),
        instances.seenSince(new Date(now - INSTANCES_WINDOW_MS), INSTANCES_SHOWN),
      ]);
      const byName = new Map(runs.map((r) => [r.job, r]));
      return {
        version,
        profile: config.env,
        parts,
        health: report,
        outbox: config.smtpUrl ? null : config.mailOutboxDir,
        jobs: WORKER_JOBS.map(({ name, schedule }) => ({ name, schedule, run: byName.get(name) })),
        instances: seen.map((i) => ({ ...i, gone: now - i.lastSeenAt.getTime() > GONE_AFTER_MS })),
      };
    },

    /** The outbox folder's mails, newest first, with the links of their text. */
    async outbox(ctx: RequestContext) {
      requireOperator(ctx);
      requireOutbox();
      const files = await readdir(outboxDir).catch(() => [] as string[]);
      const newest = files
        .filter((f) => OUTBOX_FILE.test(f))
        .sort()
        .reverse()
        .slice(0, OUTBOX_LIMIT);
      const mails = (await Promise.all(newest.map(readMail))).filter((m) => m !== undefined);
      return mails.map(({ id, createdAt, from, to, subject, text }) => ({
        id,
        createdAt,
        from,
        to,
        subject,
        text: text ?? '',
        links: [...new Set((text ?? '').match(LINK) ?? [])],
      }));
    },
  };
}
