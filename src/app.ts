// createApp(role, deps) -> a Koa app for one HTTP role. Nothing listens here, so tests can mount
// the app on an ephemeral port.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import Koa from 'koa';
import type { Document } from 'openapi-backend';
import type { Deps } from './deps.js';
import type { Services } from './services/index.js';
import { publicHandlers, dashboardHandlers } from './api/index.js';
import { buildRouter } from './http/router.js';
import { errorHandler, jsonBody, notFoundFallback, requestContext } from './http/middleware.js';
import { docsRouter } from './http/docs.js';
import { publicCors } from './http/cors.js';
import { securityResolvers } from './http/security.js';
import type { AnyHandler } from './http/types.js';
import { accessTokenRequests } from './http/access-token-log.js';
import { repoPath } from './lib/paths.js';
import { usersBlocked } from './services/data/access.js';
import { rateLimitGates } from './http/rate-limit.js';
import { databaseUnavailable } from './db/errors.js';
import { webApp } from './http/web.js';
import { clientFiles } from './http/clients.js';
import { servedOverTls, strictTransport } from './http/transport.js';
import { cookiePolicy } from './http/cookies.js';
import { noteListening } from './lib/own-origins.js';

export type HttpRole = 'public' | 'dashboard';

export function loadSpec(role: HttpRole): Document {
  return JSON.parse(readFileSync(repoPath('generated', `${role}.openapi.json`), 'utf8')) as Document;
}

/**
 * Any path under /api/data/users is a 403, whatever its depth, method or credentials: end users
 * are reached only through /api/userAuth. The data routes check it too; this covers the paths no
 * route matches.
 */
const USERS_PATH = /^\/api\/data\/users(\/|$)/;
function blockUsersPaths(ctx: Koa.Context, next: Koa.Next) {
  if (USERS_PATH.test(ctx.path)) usersBlocked();
  return next();
}

export function createApp(role: HttpRole, deps: Deps, services: Services): Koa {
  const spec = loadSpec(role);
  const handlers = (role === 'public'
    ? publicHandlers(services)
    : dashboardHandlers(services)) as unknown as Record<string, AnyHandler>;
  const log = deps.log.child({ role });
  // Behind proxies only the entries they appended to X-Forwarded-For are trusted: the leftmost
  // ones come from the client, who could otherwise choose the IP every rate limit is keyed by.
  const app = new Koa({ proxy: deps.config.trustProxy, maxIpsCount: deps.config.trustedProxyHops });
  const tls = servedOverTls(role === 'public' ? deps.config.publicUrl : deps.config.dashboardUrl);
  const api = buildRouter({
    spec,
    handlers,
    security: securityResolvers(services, deps.config.dashboardOrigins),
    log,
    cookies: cookiePolicy(tls),
    gate:
      role === 'public'
        ? rateLimitGates(
            services.rateLimits,
            (projectId) => services.usage.counter.add(projectId, 'apiCalls'),
            services.projects.knownSecretKey,
          )
        : undefined,
  });
  const docs = docsRouter(
    spec as unknown as Record<string, unknown>,
    role === 'public' ? deps.config.publicUrl : deps.config.dashboardUrl,
  );

  // Errors Koa sees outside the middleware chain (a client that aborts mid-body, a socket
  // error) go to the structured log instead of stderr.
  app.on('error', (err: Error & { code?: string }) => {
    log.warn({ err: { message: err.message, code: err.code } }, 'connection error');
  });
  app.use(
    requestContext(
      log,
      role === 'public' && services.requestLog.enabled ? services.requestLog.record : undefined,
    ),
  );
  // The process listens on plain HTTP (main.ts): a request is seen as TLS only through a trusted
  // proxy, so without either the middleware would never add the header and stays off the chain.
  if (tls || deps.config.trustProxy) app.use(strictTransport(tls));
  // Outside the error handler, so that it sees the status of a refusal too.
  if (role === 'dashboard' && services.requestLog.enabled)
    app.use(accessTokenRequests(services.requestLog.recordAccessToken));
  app.use(errorHandler(databaseUnavailable));
  if (role === 'public')
    app.use(
      publicCors([docs, api.router], {
        loopbackCredentials: deps.config.corsLoopbackCredentials,
        credentialsRefused: services.originNotices.credentialsRefused,
      }),
    );
  app.use(jsonBody(deps.config.bodyLimitBytes));
  if (role === 'public') app.use(blockUsersPaths);
  // The API's routes first: its requests then never pass the documentation's router (whose paths,
  // /openapi.json and /docs, no API route matches).
  app.use(api.routes);
  app.use(docs.routes());
  if (role === 'dashboard') {
    const { config } = deps;
    app.use(clientFiles(repoPath('dist', 'clients')));
    app.use(
      webApp(repoPath('dist', 'web'), [
        config.publicUrl,
        config.s3?.endpoint,
        config.s3?.publicUrl,
        ...config.dashboardContentOrigins,
      ]),
    );
  }
  app.use(notFoundFallback([docs, api.router]));
  // Whatever port a server of this app listens on is the platform's own: functions, hooks and
  // webhooks may not call it (src/lib/own-origins.ts), also when it was chosen at random.
  const listen = app.listen.bind(app) as (...args: unknown[]) => Server;
  app.listen = ((...args: unknown[]) => {
    const server = listen(...args);
    noteListening(server);
    return server;
  }) as Koa['listen'];
  return app;
}
