// CORS for the public API, so that apps running in a browser can call it with the publishable key.
// A preflight carries no API key, so the project (and its allowedOrigins) is unknown when it is
// answered: every preflight on a known route is granted (it grants nothing by itself), and the
// project's allowedOrigins are enforced on the actual request, which carries the key. An answer to
// a refused origin carries no CORS headers, so the page cannot read it; credentials are granted
// only to the origins the key's project names as its own (allowed origins, site URL), and in the
// development profile to loopback pages while the project lists no origins. A credentialed request
// that is not granted is noted (request log, dashboard) with the sentence that fixes it.
import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';
import { setHeaders } from './headers.js';
import { owningLayers } from './route-owner.js';
import type { RequestState } from './middleware.js';
import { credentialsRefusedNote, grantsCredentials, isWebOrigin } from '../services/user-auth/app-origins.js';
import type { Project } from '../services/types.js';

/** The code of the 403 for a publishable key used from an origin its project does not list. */
export const ORIGIN_NOT_ALLOWED = 'ORIGIN_NOT_ALLOWED';

/** Request headers any public route reads; the browser asks for them in the preflight. */
export const CORS_ALLOWED_HEADERS = [
  'x-api-key',
  'authorization',
  'content-type',
  'x-refresh-token',
  'x-refresh-token-mode',
  'x-request-id',
].join(', ');

/** Response headers a page may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  'x-request-id',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'location',
  'content-disposition',
].join(', ');

/** Seconds a browser may cache a preflight (Chromium caps it at 7200). */
export const CORS_MAX_AGE = '7200';

const GRANT_HEADERS = [
  'Access-Control-Allow-Origin',
  'Access-Control-Allow-Credentials',
  'Access-Control-Expose-Headers',
] as const;

/**
 * Methods of the routes owning `path` (from the routers built at start; a literal segment wins over
 * a parameter), with HEAD for GET as @koa/router answers it; undefined when no route has this path.
 */
function routeMethods(routers: Router[], path: string): string | undefined {
  const methods = new Set<string>();
  const layers = routers.flatMap((router) => router.match(path, 'OPTIONS').path);
  for (const layer of owningLayers(layers)) {
    for (const method of layer.methods) methods.add(method);
  }
  methods.delete('OPTIONS');
  return methods.size > 0 ? [...methods, 'OPTIONS'].join(', ') : undefined;
}

/**
 * Placed right after the error handler: it answers OPTIONS itself (before the router's 405) and
 * puts the grant on every answer to a browser, errors included, so a 401 or 404 reaches the page as
 * what it is instead of a bare "Failed to fetch". The grant echoes the origin (never `*`); it adds
 * credentials only for an origin the key's project names as its own, so a project that lists no
 * origins lets any page read its public answers but never with the user's cookies. The refresh
 * cookie is guarded separately too (services/user-auth/app-origins.ts).
 */
export interface CorsOptions {
  /** CORS_LOOPBACK_CREDENTIALS: loopback pages get credentials from a project listing no origins. */
  loopbackCredentials: boolean;
  /** Told of a credentialed request from an origin that gets no credentials (cheap; throttled there). */
  credentialsRefused?: (project: Project, origin: string) => void;
}

export function publicCors(routers: Router[], options: CorsOptions) {
  return (ctx: Context, next: Next) => {
    // Answers differ by Origin: shared caches must key on it, also for answers without one. This
    // runs before anything else sets Vary (later ones append), so a plain set is enough.
    ctx.res.setHeader('Vary', 'Origin');
    const origin = ctx.headers.origin ?? '';
    // `Origin: null` comes from sandboxed frames and local files of any site: never granted.
    const grantable = origin !== '' && origin !== 'null';
    if (ctx.method === 'OPTIONS') {
      const methods = routeMethods(routers, ctx.path);
      if (methods) {
        ctx.status = 204;
        ctx.set('Allow', methods);
        if (grantable) {
          ctx.vary('Access-Control-Request-Method');
          ctx.vary('Access-Control-Request-Headers');
          ctx.set({
            'Access-Control-Allow-Origin': origin,
            'Access-Control-Allow-Credentials': 'true',
            'Access-Control-Allow-Methods': methods,
            'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS,
            'Access-Control-Max-Age': CORS_MAX_AGE,
          });
        }
        return;
      }
    }
    return grantable ? granted(ctx, next, origin, options) : next();
  };
}

/**
 * The rest of the chain with the grant on its answer, taken off again when the key's project
 * refuses the origin, and with credentials once that project names the origin as its own.
 */
async function granted(ctx: Context, next: Next, origin: string, options: CorsOptions) {
  setHeaders(ctx, {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
  });
  try {
    await next();
  } catch (err) {
    // The key's project does not list this origin: the page gets no readable answer.
    if (err instanceof ApiError && err.code === ORIGIN_NOT_ALLOWED) {
      for (const name of GRANT_HEADERS) ctx.remove(name);
      const project = (ctx.state as Partial<RequestState>).keyProject;
      if (project) noteRefused(ctx, project, origin, options);
    } else {
      grantCredentials(ctx, origin, options);
    }
    throw err;
  }
  grantCredentials(ctx, origin, options);
}

/**
 * Credentials only for a request whose API key names a project that lists the origin (or has it as
 * site URL): keyless routes (signed URLs, public files) read no cookie and need none. Answers are
 * written after the chain returns (no route flushes headers early), so this is in time.
 */
function grantCredentials(ctx: Context, origin: string, options: CorsOptions) {
  const project = (ctx.state as Partial<RequestState>).keyProject;
  if (!project) return;
  if (grantsCredentials(project, origin, options.loopbackCredentials)) {
    setHeaders(ctx, { 'Access-Control-Allow-Credentials': 'true' });
  } else noteRefused(ctx, project, origin, options);
}

/**
 * A browser does not say that a request carries credentials, but Chromium sends
 * `Sec-Fetch-Storage-Access` on a cross-site request whose credentials mode is `include`, and any
 * browser sends the cookies it has: either marks a page that will not be let read the answer.
 */
function noteRefused(ctx: Context, project: Project, origin: string, options: CorsOptions) {
  const headers = ctx.headers;
  if (headers['sec-fetch-storage-access'] === undefined && headers.cookie === undefined) return;
  // Anyone can send these headers: only a well-formed origin is put before the developer.
  if (!isWebOrigin(origin)) return;
  (ctx.state as Partial<RequestState>).note = credentialsRefusedNote(origin);
  options.credentialsRefused?.(project, origin);
}
