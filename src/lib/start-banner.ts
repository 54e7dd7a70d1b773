// What `npm start` shows on a terminal once the service listens: where to go, and each embedded
// default in use with the setting that replaces it, in a few lines. The JSON log says the same
// in one event per line (main.ts).

export interface BannerInput {
  node: string;
  /** Role -> its URL, for the roles that listen. */
  urls: { public?: string; dashboard?: string };
  worker: boolean;
  embeddedDatabase: boolean;
  redisUrl?: string;
  s3: boolean;
  storageDir: string;
  smtpUrl?: string;
  mailOutboxDir: string;
  /** The development profile's loopback webhook and HTTP hook targets (WEBHOOK_ALLOW_LOOPBACK). */
  loopbackTargets?: boolean;
  /** The development profile put new accounts on this plan, the highest (nothing set instead). */
  profilePlan?: string;
}

/** One default in use: what runs now, and the settings that replace it. */
export interface DefaultInUse {
  name: string;
  now: string;
  replacedBy: string;
}

export function defaultsInUse(input: BannerInput): DefaultInUse[] {
  const out: DefaultInUse[] = [];
  if (input.embeddedDatabase)
    out.push({
      name: 'database',
      now: 'embedded mongo-java-server, for development and small data (docs/scale.md)',
      replacedBy: 'MONGODB_URI',
    });
  if (!input.redisUrl)
    out.push({ name: 'cache', now: 'in-process memory, a single instance only', replacedBy: 'REDIS_URL' });
  if (!input.s3)
    out.push({
      name: 'storage',
      now: `local files in ${input.storageDir}`,
      replacedBy: 'S3_BUCKET and S3_*',
    });
  if (!input.smtpUrl)
    out.push({ name: 'mail', now: `written to the folder ${input.mailOutboxDir}`, replacedBy: 'SMTP_URL' });
  // Shown because it is a development default that production must not keep.
  if (input.loopbackTargets)
    out.push({
      name: 'webhooks',
      now: 'development profile: http://localhost and loopback targets accepted (webhooks, HTTP hooks)',
      replacedBy: 'WEBHOOK_ALLOW_LOOPBACK=false',
    });
  if (input.profilePlan)
    out.push({
      name: 'plans',
      now: `development profile: new accounts on ${input.profilePlan}, the highest plan; yours has no plan limits`,
      replacedBy: 'DEFAULT_PLAN or PLANS_FILE',
    });
  return out;
}

export function startBanner(input: BannerInput): string {
  const rows: [string, string, string?][] = [];
  if (input.urls.dashboard)
    rows.push(['dashboard', input.urls.dashboard, `API reference ${input.urls.dashboard}/docs`]);
  if (input.urls.public)
    rows.push(['public API', input.urls.public, `API reference ${input.urls.public}/docs`]);
  for (const d of defaultsInUse(input)) rows.push([d.name, d.now, `set ${d.replacedBy} to replace`]);
  const first = Math.max(...rows.map(([a]) => a.length));
  const second = Math.max(...rows.map(([, b]) => b.length));
  const roles = [...Object.keys(input.urls), ...(input.worker ? ['worker'] : [])].join(', ');
  return [
    `mongobaas is running (${roles}) on Node.js ${input.node}`,
    ...rows.map(([a, b, c]) => `  ${a.padEnd(first)}  ${c ? `${b.padEnd(second)}  ${c}` : b}`),
  ].join('\n');
}
