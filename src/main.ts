// Entry point: `node dist/main.js [public|dashboard|worker|all]` (default all). Loads the config,
// connects, listens, and stops gracefully on SIGTERM/SIGINT: no new connections, in-flight
// requests finish, then the database and cache connections close. `node dist/main.js recount`
// runs the usage recount once and exits (`npm run recount`).
import type { Server } from 'node:http';
import { loadConfig, ConfigError, type Role } from './config.js';
import { createLogger, resolveLogFormat } from './lib/logger.js';
import { defaultsInUse, startBanner, type BannerInput } from './lib/start-banner.js';
import { createDeps, closeDeps } from './deps.js';
import { EMBEDDED_ENGINE_NOTE } from './services/health.js';
import { createServices } from './services/index.js';
import { createApp, type HttpRole } from './app.js';
import { withTimeout } from './lib/time.js';
import { startWorker } from './jobs/worker.js';
import { usageRecountJob } from './jobs/usage-recount.js';
import { startHeartbeat } from './services/heartbeat.js';
import { instancesRepo } from './db/instances.js';

const ROLES: Role[] = ['public', 'dashboard', 'worker'];
/** How long the shutdown's last writes may wait for the database, and how long it waits to learn that the database is gone. */
const SHUTDOWN_FLUSH_MS = 3000;
const SHUTDOWN_PING_MS = 2000;

async function main() {
  const arg = process.argv[2] ?? 'all';
  if (arg === 'recount') return recountOnce();
  const roles = arg === 'all' ? ROLES : ROLES.filter((role) => role === arg);
  if (roles.length === 0) throw new Error(`Unknown role "${arg}": use public, dashboard, worker or all`);

  const config = loadConfig();
  const format = resolveLogFormat(config.logFormat);
  const log = createLogger(config.logLevel, { service: 'baas' }, format);
  // The runtime is named first: the project runs on the Node.js LTS of .node-version.
  log.info({ roles, node: process.version }, `starting ${roles.join(', ')} on Node.js ${process.version}`);
  const deps = await createDeps(config, log);
  const services = createServices(deps);
  // The plans edited on the Plans page are in force before the first request (and the banner).
  await services.planSettings.ready;
  const banner: BannerInput = {
    node: process.version,
    urls: {},
    worker: roles.includes('worker'),
    embeddedDatabase: config.embeddedDatabase,
    redisUrl: config.redisUrl,
    s3: Boolean(config.s3),
    storageDir: config.storageDir,
    smtpUrl: config.smtpUrl,
    mailOutboxDir: config.mailOutboxDir,
    loopbackTargets: config.webhooks.allowLoopback && !config.allowPrivateHosts,
    profilePlan: config.plans.profileDefault ? config.plans.get(config.plans.defaultPlan).label : undefined,
  };
  // On a terminal one banner says it all once the service listens; JSON has an event per fact.
  if (format === 'json') announceDefaults(banner, log);

  const servers: Server[] = [];
  let worker: ReturnType<typeof startWorker> | undefined;
  let heartbeat: ReturnType<typeof startHeartbeat> | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      for (const server of servers) server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    // With the database gone, a request in flight only waits for its 503 (two server selections
    // took 10 s): connections are cut once a ping has no answer within SHUTDOWN_PING_MS.
    withTimeout(deps.db.ping(), SHUTDOWN_PING_MS, 'database ping').catch(() => {
      for (const server of servers) server.closeAllConnections();
    });
    // Open realtime streams would hold their connections: they end, telling clients to reconnect.
    services.realtime.close();
    await Promise.all([
      ...servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          }),
      ),
      worker?.stop(),
      heartbeat?.stop(),
      services.planSettings.stop(),
    ]);
    clearTimeout(force);
    const flush = async () => {
      // The counts of the last few seconds (API calls, mail, deliveries) are written before exit.
      await services.usage.counter.stop().catch((err) => log.error({ err }, 'usage flush failed'));
      // The request log's buffered entries (about the last second of requests) are written too.
      await services.requestLog.close().catch((err) => log.error({ err }, 'request log flush failed'));
      // The unused rest of the database quota's open leases goes back to the projects' counters.
      await services.quota.stop().catch((err) => log.error({ err }, 'database quota give-back failed'));
      // The invocation log's buffered entries are written; unused monthly invocations given back.
      await services.functions.close().catch((err) => log.error({ err }, 'functions close failed'));
    };
    // A database that is gone would hold each write for its whole server selection time (12 s in
    // all were seen with the embedded one killed): the last writes get one deadline, then the
    // process stops without them.
    await withTimeout(flush(), SHUTDOWN_FLUSH_MS, 'the last writes').catch(() =>
      log.warn(
        `the database did not take the last writes (usage counts, request log, leases) within ${SHUTDOWN_FLUSH_MS / 1000} s; stopping without them`,
      ),
    );
    // Hosted-function runners are killed once no request can need them.
    await services.hosted.close().catch((err) => log.error({ err }, 'hosted runtime close failed'));
    await closeDeps(deps);
    log.info('stopped');
    process.exit(0);
  };
  // Handlers before anything is announced: a signal that arrives right after the first log line
  // must find them (without one, SIGTERM kills the process at once).
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  for (const role of roles.filter((r): r is HttpRole => r !== 'worker')) {
    if (stopping) return;
    const port = role === 'public' ? config.publicPort : config.dashboardPort;
    const app = createApp(role, deps, services);
    const server = app.listen(port, config.host);
    servers.push(server);
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const url = role === 'public' ? config.publicUrl : config.dashboardUrl;
    banner.urls[role] = url;
    if (format === 'json')
      log.info(
        { role, url, docs: `${url}/docs` },
        `${role} API listening on ${url} (reference at ${url}/docs)`,
      );
  }
  if (!stopping && roles.includes('worker')) worker = startWorker(deps, services);
  // Once every role runs: the operator's overview lists this process from now on.
  if (!stopping)
    heartbeat = startHeartbeat({
      instances: instancesRepo(deps.db.platform),
      roles,
      version: deps.version,
      log,
    });
  if (!stopping && format === 'pretty') log.info(startBanner(banner));
}

/** `recount`: the usage recount of the worker, once, for the operator; exits when done. */
async function recountOnce() {
  const config = loadConfig();
  const log = createLogger(config.logLevel, { service: 'baas' });
  const deps = await createDeps(config, log);
  try {
    const report = await usageRecountJob(deps, createServices(deps)).recount();
    process.exitCode = report.failed ? 1 : 0;
  } finally {
    await closeDeps(deps);
  }
}

/** One line per embedded default in use, naming the variable that replaces it. */
function announceDefaults(input: BannerInput, log: ReturnType<typeof createLogger>) {
  for (const d of defaultsInUse(input)) {
    if (d.name === 'database') log.warn(`database: ${EMBEDDED_ENGINE_NOTE}`);
    else log.info(`${d.name}: ${d.now}; set ${d.replacedBy} to use it instead`);
  }
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    console.error('Start-up failed:', err instanceof Error ? err.message : err);
  }
  process.exit(1);
});
