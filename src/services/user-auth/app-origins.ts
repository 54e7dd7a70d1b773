// The origins a project names as its own app: the allowed origins it lists and its site URL's
// origin. Social login sends codes only there, and the refresh cookie is honoured only there.
import { badRequest } from '../../http/errors.js';
import type { Project } from '../types.js';

export function appOrigins(project: Project): Set<string> {
  const { siteUrl, allowedOrigins } = project.settings;
  const origins = new Set(allowedOrigins);
  if (siteUrl) origins.add(new URL(siteUrl).origin);
  return origins;
}

/** A page served from this machine over plain http: `localhost`, `127.0.0.1` or `[::1]`, any port. */
const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/**
 * Whether a page on `origin` gets credentials (cookies, and reading the answer to a request that
 * sent them): an app origin of the project; with `loopback` (the development profile's
 * CORS_LOOPBACK_CREDENTIALS), also a loopback page while the project lists no allowed origins, so
 * a browser SDK that sends `credentials: 'include'` works before anything is configured.
 */
export function grantsCredentials(project: Project, origin: string, loopback: boolean): boolean {
  if (appOrigins(project).has(origin)) return true;
  return loopback && project.settings.allowedOrigins.length === 0 && LOOPBACK_ORIGIN.test(origin);
}

/**
 * Whether `origin` is a web origin as a browser sends it (`https://host[:port]`, or `http://`):
 * the Origin header is any client's to write, so nothing else is put before the developer.
 */
export function isWebOrigin(origin: string): boolean {
  if (origin.length > 2048) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === origin;
  } catch {
    return false;
  }
}

/** The sentence that fixes a refused credentialed request, for the request log and the dashboard. */
export const credentialsRefusedNote = (origin: string) =>
  `A page on ${origin} sent credentials; add it to Allowed origins (project Settings) so the browser lets it read the answers.`;

/**
 * Whether the `baas_refresh` cookie may be read from, and set on, a request. The public API answers
 * any origin when a project lists none; it grants credentials only to app origins, but a browser
 * sends the cookie before it checks that grant, so a page of another site could otherwise send the
 * cookie (same-site pages, or SameSite=None deployments) and spend the user's refresh token: a
 * request with an `Origin` must come from one of the project's app origins. A request
 * without one (a server, a mobile app, a same-origin GET) is not driven by a foreign page.
 */
export function refreshCookieUsable(project: Project | undefined, origin: string | undefined): boolean {
  if (!origin) return true;
  return project !== undefined && appOrigins(project).has(origin);
}

/** Only origins the developer configured may receive the code: the site URL and allowed origins. */
export function redirectTarget(project: Project, requested: string | undefined): string {
  const { siteUrl } = project.settings;
  const origins = appOrigins(project);
  const target = requested ?? siteUrl ?? undefined;
  let url: URL | undefined;
  try {
    url = target ? new URL(target) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || !origins.has(url.origin)) {
    throw badRequest(
      origins.size === 0
        ? "Set the project's site URL (or allowed origins) in the dashboard to allow social login redirects"
        : `redirectUrl must be within the project's site URL or allowed origins (${[...origins].join(', ')})`,
      [{ path: 'query.redirectUrl', message: 'redirectUrl is not allowed for this project' }],
      'REDIRECT_URL_NOT_ALLOWED',
    );
  }
  return url.toString();
}
