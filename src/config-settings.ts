// The settings groups of the configuration (src/config.ts reads them from the environment).
/** A project's own MongoDB (SERVICE-SPEC "External database connection", DECISIONS §7). */
export interface ExternalDatabaseSettings {
  /** The outbound addresses of each role, shown to developers for their cluster's IP allowlist. */
  readonly egressIps: { readonly dashboard: string[]; readonly public: string[] };
  /** Open connection pools per process at most; the least recently used one is closed first. */
  readonly maxPools: number;
  /** A pool unused for this long is closed. */
  readonly idleMs: number;
  /** Connections per pool at most. */
  readonly poolSize: number;
  /**
   * The deadline of one operation on a project's own deployment (a request's read or write, an
   * intent check): past it the client gets a 504 EXTERNAL_DB_TIMEOUT, and no socket of the pool
   * waits longer than it for an answer.
   */
  readonly timeoutMs: number;
}

/** HTTP hooks' circuit breaker (docs/functions.md): opens after so many failures in a row. */
export interface HookBreakerSettings {
  readonly failures: number;
  /** How long it stays open before one trial call may go (half-open). */
  readonly cooldownMs: number;
}

/** Webhook delivery (DECISIONS §9); everything but the defaults is for operators and tests. */
export interface WebhookSettings {
  /** Plain http:// targets (https only otherwise; ALLOW_PRIVATE_HOSTS allows http too). */
  readonly allowHttp: boolean;
  /**
   * Webhook and HTTP hook targets on localhost and loopback addresses, over http too (a receiver
   * on the developer's laptop); never private, link-local or metadata ones. On by default in the
   * development profile only.
   */
  readonly allowLoopback: boolean;
  /** Delay before each retry; a delivery is attempted once plus once per entry. */
  readonly retryScheduleMs: readonly number[];
  readonly pollIntervalMs: number;
  /** How long a claimed delivery stays with its worker; longer than the timeout. */
  readonly leaseMs: number;
  readonly timeoutMs: number;
  /** Deliveries one worker process makes at once (its lanes). */
  readonly lanesPerWorker: number;
  /** Leased deliveries one project may hold at once, over every worker (its share of the lanes). */
  readonly lanesPerProject: number;
  /** Leased deliveries to one target host name at once, over every worker and project. */
  readonly lanesPerHost: number;
  /**
   * A project whose deliveries hold a lane this long (recent average, or one still in flight)
   * is slow: slow projects share at most half of a worker's lanes, the rest stays for others.
   */
  readonly slowDeliveryMs: number;
  /** Test pings and redeliveries one project may queue per minute. */
  readonly manualPerMinute: number;
  /** Deliveries (and intents) a project may have waiting; events past it are dropped and counted. */
  readonly maxPendingPerProject: number;
  /** A payload larger than this carries the document's id and `truncated: true`, not the document. */
  readonly maxPayloadBytes: number;
  /** How long finished deliveries stay in the log. */
  readonly retainSucceededMs: number;
  readonly retainFailedMs: number;
  /** A webhook is paused after this many deliveries in a row failed for good... */
  readonly pauseAfterFailures: number;
  /** ...or when a delivery fails for good and its endpoint has been failing for this long. */
  readonly pauseAfterMs: number;
  /** An intent still unconfirmed after this long is checked against the database by the worker. */
  readonly intentGraceMs: number;
  /** Failed checks of one intent (its project's database unreadable) after which it is dropped. */
  readonly intentMaxFailures: number;
}

/** The per-project log of public API requests the dashboard shows (services/request-log/). */
export interface RequestLogSettings {
  readonly enabled: boolean;
  /** Entries kept per project (the oldest go first). */
  readonly maxEntries: number;
  /** Entries older than this are deleted. */
  readonly maxAgeDays: number;
  /** Entries waiting to be written; beyond it new ones are dropped and counted. */
  readonly bufferEntries: number;
}

/** Realtime streams (`GET /api/realtime/:collectionName`); the defaults suit production. */
export interface RealtimeSettings {
  /** Events kept per collection for reconnects (`Last-Event-ID`). */
  readonly replayEvents: number;
  /** How long a collection's replay log lives after its last subscriber left. */
  readonly replaySeconds: number;
  /** Interval of the comment lines that keep idle connections (and proxies) open. */
  readonly heartbeatMs: number;
  /** Bytes a connection may have queued and unsent before it is dropped as too slow. */
  readonly maxBufferedBytes: number;
  /** Streams of one project from one client IP at most (0 = no cap); secret-key streams are exempt. */
  readonly connectionsPerIp: number;
  /** ...and at most this share of the plan's cap per client IP, whichever is lower. */
  readonly ipSharePercent: number;
  /** Share of the plan's cap kept for streams with a signed-in end user (or the secret key). */
  readonly reservedPercent: number;
  /** Streams one process holds at most (then 503). */
  readonly connectionsPerProcess: number;
  /** Bytes all of a process's streams may have queued and unsent; past it, slow readers are dropped. */
  readonly maxBufferedBytesPerProcess: number;
  /** Milliseconds of stream regular-expression matching per second one project may use in one process. */
  readonly regexMsPerSecond: number;
}

/**
 * The AI tools' provider (DECISIONS §8): an OpenAI-compatible chat-completions API. The platform
 * key is optional: without it, AI requests need a project or developer key.
 */
export interface AiSettings {
  /** Base URL of the API; `/chat/completions` is appended. */
  readonly baseUrl: string;
  readonly model: string;
  /** Shown in messages (`Invalid BYOK <provider> key provided`). */
  readonly providerName: string;
  /** The fixed prefix of the provider's keys: 3 characters and an underscore. */
  readonly keyPrefix: string;
  readonly platformKey: string | undefined;
  readonly timeoutMs: number;
  /** AI requests per minute per project and per developer on the platform key. */
  readonly platformRequestsPerMinute: number;
  /** The same on a supplied (project or developer) key. */
  readonly requestsPerMinute: number;
}

/** The hosted-JavaScript runtime's pool of runner processes (docs/functions.md, "Hosted runtime"). */
export interface SandboxSettings {
  /** Runner processes kept warm per process that runs functions. */
  readonly runners: number;
  /** Calls of one project running at once, per process. */
  readonly projectRunning: number;
  /** Calls of one project waiting for a runner; past running + waiting, 429 FUNCTION_CONCURRENCY. */
  readonly projectWaiting: number;
  /** The hard maximum of a runner's WebAssembly memory. */
  readonly wasmMemoryBytes: number;
  /** A runner whose resident memory passes this is killed and replaced. */
  readonly rssLimitBytes: number;
  /** The interpreter's stack limit. */
  readonly stackBytes: number;
  /** How long past a call's deadline the parent waits before it kills the runner. */
  readonly graceMs: number;
}
