// Every setting, read from the environment once, validated and frozen. The process stops at start
// with one line per problem rather than fail later. No secret has a default: the local stack
// script (scripts/stack.sh) generates them into an env file.
import { Reader, type Env } from './config-reader.js';
import { oauthProvider, type OAuthProviderConfig, type OAuthProviderName } from './config-oauth.js';
import { readPlanTable, type PlanTable } from './lib/plan-table.js';
import type {
  ExternalDatabaseSettings,
  HookBreakerSettings,
  WebhookSettings,
  RequestLogSettings,
  RealtimeSettings,
  AiSettings,
  SandboxSettings,
} from './config-settings.js';
export type {
  ExternalDatabaseSettings,
  HookBreakerSettings,
  WebhookSettings,
  RequestLogSettings,
  RealtimeSettings,
  AiSettings,
  SandboxSettings,
};

export type { OAuthProviderConfig, OAuthProviderName };

export type Role = 'public' | 'dashboard' | 'worker';

export interface Config {
  readonly env: 'development' | 'test' | 'production';
  readonly host: string;
  readonly publicPort: number;
  readonly dashboardPort: number;
  readonly publicUrl: string;
  readonly dashboardUrl: string;
  /** Origins from which cookie-authenticated dashboard writes are accepted. */
  readonly dashboardOrigins: string[];
  /** More origins the dashboard's pages may show images from and upload to (projects' own buckets). */
  readonly dashboardContentOrigins: string[];
  /**
   * Loopback pages (`http://localhost:*`, `127.0.0.1`, `[::1]`) get credentials from a project that
   * lists no allowed origins: the development profile's default, so a browser SDK works out of the box.
   */
  readonly corsLoopbackCredentials: boolean;
  readonly mongodbUri: string;
  readonly platformDb: string;
  readonly redisUrl: string | undefined;
  readonly s3:
    | {
        readonly endpoint: string | undefined;
        readonly region: string;
        readonly bucket: string;
        readonly accessKeyId: string;
        readonly secretAccessKey: string;
        readonly publicUrl: string | undefined;
      }
    | undefined;
  readonly storageDir: string;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly mailOutboxDir: string;
  /** Social login of end users; a provider is enabled when its client id and secret are set. */
  readonly oauth: Readonly<Record<OAuthProviderName, OAuthProviderConfig | undefined>>;
  /** End-user sign-ups accepted per client IP, per project and hour. */
  readonly userAuthSignupsPerHour: number;
  readonly encryptionKey: Buffer;
  /** Earlier ENCRYPTION_KEYs, still accepted to open values sealed before a rotation. */
  readonly encryptionKeysPrevious: Buffer[];
  readonly internalApiSecret: string;
  /** Where the dashboard role reaches the public role's internal endpoints (PUBLIC_URL by default). */
  readonly publicInternalUrl: string;
  readonly externalDatabases: ExternalDatabaseSettings;
  /** Resolvers for hosts developers supply (empty: the system's). */
  readonly dnsServers: string[];
  readonly bodyLimitBytes: number;
  /** The largest collection import, streamed (not bound by the JSON body limit). */
  readonly importMaxBytes: number;
  readonly queryTimeoutMs: number;
  /** A list request at least this slow is kept as a slow query of its project (shape, count, worst time). */
  readonly slowQueryMs: number;
  /** The installation's plans (PLANS_FILE) and the plan of new accounts (DEFAULT_PLAN). */
  readonly plans: PlanTable;
  /** How often a process re-reads the plans saved on the Plans page: the longest a save takes to reach it. */
  readonly plansRefreshMs: number;
  /** Dashboard API requests per minute allowed to one personal access token. */
  readonly accessTokenRequestsPerMinute: number;
  /** The database is the embedded development engine (`npm start` without MONGODB_URI). */
  readonly embeddedDatabase: boolean;
  /** How long a request waits for MongoDB or Redis to be reachable before it fails with 503. */
  readonly connectTimeoutMs: number;
  /**
   * Public API requests per minute of one client IP (0 = off). Secret-key requests count only
   * against their project's plan limit: server-side code often calls from one address.
   */
  readonly rateLimitIpPerMinute: number;
  /**
   * The share (percent) of a project's publishable-key budget that one client IP may use; the
   * secret key has a budget of its own (100 = no per-client share).
   */
  readonly rateLimitClientSharePercent: number;
  /** Code mails (verification, reset) the platform sends per project and hour at most. */
  readonly systemMailPerProjectPerHour: number;
  /** The same per recipient address, across projects. */
  readonly systemMailPerAddressPerHour: number;
  /** Developer sign-ups per client IP (an IPv6 /64) and hour. */
  readonly developerSignupsPerHour: number;
  readonly allowPrivateHosts: boolean;
  readonly hookBreaker: HookBreakerSettings;
  readonly webhooks: WebhookSettings;
  readonly realtime: RealtimeSettings;
  readonly requestLog: RequestLogSettings;
  readonly ai: AiSettings;
  readonly sandbox: SandboxSettings;
  readonly trustProxy: boolean;
  /** With trustProxy: how many proxies append to X-Forwarded-For; the client is the entry that many from the right. */
  readonly trustedProxyHops: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: readable lines on a terminal, JSON lines otherwise. */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  readonly shutdownTimeoutMs: number;
  /**
   * The deadline of one worker task about one project (a backup or restore job, one collection's
   * TTL sweep or trash purge, a webhook intent check): past it the task is abandoned (failed) and
   * its lane serves other projects.
   */
  readonly workerTaskTimeoutMs: number;
  /** How long a restore's one read of its archive into the local copy may take (a bucket may trickle). */
  readonly restoreCopyTimeoutMs: number;
}

/** One duration such as `7d` or `90s`. */
function duration(r: Reader, name: string, fallback: string): number {
  const [value, ...more] = r.durations(name, fallback);
  if (value === undefined || more.length || value <= 0)
    r.problems.push(`${name} must be one positive duration like 7d or 90s`);
  return value ?? 0;
}

export function loadConfig(env: Env = process.env): Config {
  const r = new Reader(env);
  const nodeEnv = r.oneOf('NODE_ENV', ['development', 'test', 'production'], 'development');
  const publicPort = r.int('PUBLIC_PORT', 3000, 0, 65535);
  const dashboardPort = r.int('DASHBOARD_PORT', 3001, 0, 65535);
  const s3Bucket = r.optional('S3_BUCKET');
  const config: Config = {
    env: nodeEnv,
    host: r.string('HOST', '127.0.0.1'),
    publicPort,
    dashboardPort,
    publicUrl: r.url('PUBLIC_URL', ['http:', 'https:'], `http://localhost:${publicPort}`)!,
    dashboardUrl: r.url('DASHBOARD_URL', ['http:', 'https:'], `http://localhost:${dashboardPort}`)!,
    dashboardOrigins: [],
    dashboardContentOrigins: r.list('DASHBOARD_CONTENT_ORIGINS'),
    corsLoopbackCredentials: r.bool('CORS_LOOPBACK_CREDENTIALS', nodeEnv === 'development'),
    mongodbUri: r.requiredUrl('MONGODB_URI', ['mongodb:', 'mongodb+srv:']),
    platformDb: r.string('PLATFORM_DB', 'baas_platform'),
    redisUrl: r.url('REDIS_URL', ['redis:', 'rediss:']),
    s3: s3Bucket
      ? {
          endpoint: r.url('S3_ENDPOINT', ['http:', 'https:']),
          region: r.string('S3_REGION', 'us-east-1'),
          bucket: s3Bucket,
          accessKeyId: r.string('S3_ACCESS_KEY_ID'),
          secretAccessKey: r.string('S3_SECRET_ACCESS_KEY'),
          publicUrl: r.url('S3_PUBLIC_URL', ['http:', 'https:']),
        }
      : undefined,
    storageDir: r.string('STORAGE_DIR', '.data/storage'),
    smtpUrl: r.url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: r.string('MAIL_FROM', 'no-reply@localhost'),
    mailOutboxDir: r.string('MAIL_OUTBOX_DIR', '.data/outbox'),
    oauth: { github: oauthProvider(r, 'github'), google: oauthProvider(r, 'google') },
    userAuthSignupsPerHour: r.int('USER_AUTH_SIGNUPS_PER_HOUR', 30, 1, 1_000_000_000),
    encryptionKey: r.secretBytes('ENCRYPTION_KEY', 32),
    encryptionKeysPrevious: r.list('ENCRYPTION_KEYS_PREVIOUS').map((key) => Buffer.from(key, 'base64')),
    internalApiSecret: r.string('INTERNAL_API_SECRET'),
    publicInternalUrl: '',
    externalDatabases: {
      egressIps: { dashboard: r.list('DASHBOARD_EGRESS_IPS'), public: r.list('PUBLIC_EGRESS_IPS') },
      maxPools: r.int('EXTERNAL_DB_MAX_POOLS', 200, 1, 100_000),
      idleMs: r.int('EXTERNAL_DB_IDLE_MS', 10 * 60_000, 1000, 24 * 3_600_000),
      poolSize: r.int('EXTERNAL_DB_POOL_SIZE', 10, 1, 500),
      timeoutMs: r.int('EXTERNAL_DB_TIMEOUT_MS', 5000, 100, 300_000),
    },
    dnsServers: r.list('DNS_SERVERS'),
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    importMaxBytes: r.int('IMPORT_MAX_BYTES', 256 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    queryTimeoutMs: r.int('QUERY_TIMEOUT_MS', 10_000, 100, 300_000),
    slowQueryMs: r.int('SLOW_QUERY_MS', 100, 0, 600_000),
    // The development profile (`npm start`) puts new accounts on the highest plan: a laptop's
    // installation is its developer's own. PLANS_FILE or DEFAULT_PLAN say otherwise.
    plans: readPlanTable(
      r.optional('PLANS_FILE'),
      r.optional('DEFAULT_PLAN'),
      r.problems,
      nodeEnv === 'development',
    ),
    plansRefreshMs: r.int('PLANS_REFRESH_MS', 5000, 100, 300_000),
    accessTokenRequestsPerMinute: r.int('ACCESS_TOKEN_REQUESTS_PER_MINUTE', 600, 1, 1_000_000),
    embeddedDatabase: r.bool('EMBEDDED_DATABASE', false),
    connectTimeoutMs: r.int('CONNECT_TIMEOUT_MS', 5000, 100, 60_000),
    rateLimitIpPerMinute: r.int('RATE_LIMIT_IP_PER_MINUTE', 1200, 0, 1_000_000_000),
    rateLimitClientSharePercent: r.int('RATE_LIMIT_CLIENT_SHARE_PERCENT', 20, 1, 100),
    systemMailPerProjectPerHour: r.int('SYSTEM_MAIL_PER_PROJECT_PER_HOUR', 100, 1, 1_000_000_000),
    systemMailPerAddressPerHour: r.int('SYSTEM_MAIL_PER_ADDRESS_PER_HOUR', 5, 1, 1_000_000_000),
    developerSignupsPerHour: r.int('DEVELOPER_SIGNUPS_PER_HOUR', 10, 1, 1_000_000_000),
    allowPrivateHosts: r.bool('ALLOW_PRIVATE_HOSTS', false),
    hookBreaker: {
      failures: r.int('HOOK_BREAKER_FAILURES', 5, 1, 1000),
      cooldownMs: r.int('HOOK_BREAKER_COOLDOWN_MS', 30_000, 100, 3_600_000),
    },
    webhooks: {
      allowHttp: r.bool('WEBHOOK_ALLOW_HTTP', false),
      allowLoopback: r.bool('WEBHOOK_ALLOW_LOOPBACK', nodeEnv === 'development'),
      retryScheduleMs: r.durations('WEBHOOK_RETRY_SCHEDULE', '30s,2m,10m,1h,6h,24h'),
      pollIntervalMs: r.int('WEBHOOK_POLL_INTERVAL_MS', 1000, 10, 60_000),
      leaseMs: r.int('WEBHOOK_LEASE_MS', 60_000, 1000, 3_600_000),
      timeoutMs: r.int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      lanesPerWorker: r.int('WEBHOOK_LANES_PER_WORKER', 4, 1, 256),
      lanesPerProject: r.int('WEBHOOK_LANES_PER_PROJECT', 2, 1, 64),
      lanesPerHost: r.int('WEBHOOK_LANES_PER_HOST', 4, 1, 10_000),
      slowDeliveryMs: r.int('WEBHOOK_SLOW_DELIVERY_MS', 2000, 10, 600_000),
      manualPerMinute: r.int('WEBHOOK_MANUAL_PER_MINUTE', 30, 1, 100_000),
      maxPendingPerProject: r.int('WEBHOOK_MAX_PENDING_PER_PROJECT', 1000, 1, 10_000_000),
      maxPayloadBytes: r.int('WEBHOOK_MAX_PAYLOAD_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
      retainSucceededMs: duration(r, 'WEBHOOK_RETAIN_SUCCEEDED', '7d'),
      retainFailedMs: duration(r, 'WEBHOOK_RETAIN_FAILED', '30d'),
      pauseAfterFailures: r.int('WEBHOOK_PAUSE_AFTER_FAILURES', 20, 1, 1_000_000),
      pauseAfterMs: duration(r, 'WEBHOOK_PAUSE_AFTER', '3d'),
      intentGraceMs: duration(r, 'WEBHOOK_INTENT_GRACE', '1m'),
      intentMaxFailures: r.int('WEBHOOK_INTENT_MAX_FAILURES', 10, 1, 10_000),
    },
    realtime: {
      replayEvents: r.int('REALTIME_REPLAY_EVENTS', 1000, 1, 100_000),
      replaySeconds: r.int('REALTIME_REPLAY_SECONDS', 300, 10, 86_400),
      heartbeatMs: r.int('REALTIME_HEARTBEAT_MS', 15_000, 50, 300_000),
      maxBufferedBytes: r.int('REALTIME_MAX_BUFFERED_BYTES', 1024 * 1024, 1024, 256 * 1024 * 1024),
      connectionsPerIp: r.int('REALTIME_CONNECTIONS_PER_IP', 25, 0, 1_000_000),
      ipSharePercent: r.int('REALTIME_IP_SHARE_PERCENT', 5, 1, 100),
      reservedPercent: r.int('REALTIME_RESERVED_PERCENT', 25, 0, 90),
      maxBufferedBytesPerProcess: r.int(
        'REALTIME_MAX_BUFFERED_BYTES_PER_PROCESS',
        256 * 1024 * 1024,
        64 * 1024,
        64 * 1024 * 1024 * 1024,
      ),
      connectionsPerProcess: r.int('REALTIME_CONNECTIONS_PER_PROCESS', 10_000, 1, 10_000_000),
      regexMsPerSecond: r.int('REALTIME_REGEX_MS_PER_SECOND', 50, 1, 1000),
    },
    requestLog: {
      enabled: r.bool('REQUEST_LOG_ENABLED', true),
      maxEntries: r.int('REQUEST_LOG_MAX_ENTRIES', 10_000, 1, 1_000_000),
      maxAgeDays: r.int('REQUEST_LOG_MAX_AGE_DAYS', 7, 1, 365),
      bufferEntries: r.int('REQUEST_LOG_BUFFER_ENTRIES', 10_000, 10, 1_000_000),
    },
    ai: {
      baseUrl: r.url('AI_BASE_URL', ['http:', 'https:'], 'https://api.groq.com/openai/v1') ?? '',
      model: r.string('AI_MODEL', 'llama-3.3-70b-versatile'),
      providerName: r.string('AI_PROVIDER_NAME', 'Groq'),
      keyPrefix: r.string('AI_KEY_PREFIX', 'gsk_'),
      platformKey: r.optional('AI_PLATFORM_KEY'),
      timeoutMs: r.int('AI_TIMEOUT_MS', 30_000, 100, 300_000),
      platformRequestsPerMinute: r.int('AI_PLATFORM_REQUESTS_PER_MINUTE', 5, 1, 1_000_000),
      requestsPerMinute: r.int('AI_REQUESTS_PER_MINUTE', 30, 1, 1_000_000),
    },
    sandbox: {
      runners: r.int('SANDBOX_RUNNERS', 4, 1, 256),
      projectRunning: r.int('SANDBOX_PROJECT_RUNNING', 2, 1, 256),
      projectWaiting: r.int('SANDBOX_PROJECT_WAITING', 16, 0, 100_000),
      wasmMemoryBytes: r.int('SANDBOX_WASM_MEMORY_MB', 256, 32, 4096) * 1024 * 1024,
      rssLimitBytes: r.int('SANDBOX_RUNNER_RSS_MB', 512, 64, 65_536) * 1024 * 1024,
      stackBytes: r.int('SANDBOX_STACK_KB', 256, 64, 1024) * 1024,
      graceMs: r.int('SANDBOX_GRACE_MS', 100, 10, 10_000),
    },
    trustProxy: r.bool('TRUST_PROXY', false),
    trustedProxyHops: r.int('TRUSTED_PROXY_HOPS', 1, 1, 32),
    logLevel: r.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    logFormat: r.oneOf('LOG_FORMAT', ['auto', 'json', 'pretty'], 'auto'),
    shutdownTimeoutMs: r.int('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 120_000),
    workerTaskTimeoutMs: r.int('WORKER_TASK_TIMEOUT_MS', 30 * 60_000, 500, 24 * 3_600_000),
    restoreCopyTimeoutMs: r.int('RESTORE_COPY_TIMEOUT_MS', 15 * 60_000, 1000, 24 * 3_600_000),
  };
  if (config.dashboardUrl) {
    const extra = (r.optional('DASHBOARD_ORIGINS') ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    (config as { dashboardOrigins: string[] }).dashboardOrigins = [
      new URL(config.dashboardUrl).origin,
      ...extra,
    ];
  }
  (config as { publicInternalUrl: string }).publicInternalUrl =
    r.url('PUBLIC_INTERNAL_URL', ['http:', 'https:']) ?? config.publicUrl;
  if (config.encryptionKeysPrevious.some((key) => key.length < 32)) {
    r.problems.push('ENCRYPTION_KEYS_PREVIOUS must be base64 keys of at least 32 bytes, comma-separated');
  }
  if (config.internalApiSecret && config.internalApiSecret.length < 32) {
    r.problems.push('INTERNAL_API_SECRET must be at least 32 characters');
  }
  if (config.webhooks.leaseMs <= config.webhooks.timeoutMs) {
    r.problems.push('WEBHOOK_LEASE_MS must be longer than WEBHOOK_TIMEOUT_MS');
  }
  if (!/^[A-Za-z0-9]{3}_$/.test(config.ai.keyPrefix)) {
    r.problems.push('AI_KEY_PREFIX must be 3 letters or digits and an underscore, like gsk_');
  }
  if (r.problems.length) throw new ConfigError(r.problems);
  return Object.freeze(config);
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}
