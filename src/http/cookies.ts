// The cookies of the service on the wire. Over TLS (the role's external URL is https, or the
// request came over TLS) they are Secure, and on an https deployment they carry the prefix the
// browser enforces: `__Host-` for the cookie on `/` (Secure, no Domain, Path=/: no sibling
// subdomain can plant or shadow it), `__Secure-` for the path-scoped ones. Handlers use the bare
// names; only this module knows the wire names.
import type { Context } from 'koa';
import { SESSION_COOKIE } from '../services/accounts.js';
import {
  OAUTH_STATE_COOKIE,
  OAUTH_STATE_COOKIE_PATH,
  REFRESH_COOKIE,
  REFRESH_COOKIE_PATH,
} from '../services/user-auth/index.js';
import type { CookieToSet } from './types.js';

/** The path each cookie is set on: it decides the prefix, and a reader must know it up front. */
const PATHS: ReadonlyMap<string, string> = new Map([
  [SESSION_COOKIE, '/'],
  [OAUTH_STATE_COOKIE, OAUTH_STATE_COOKIE_PATH],
]);
/** Per-project refresh cookies (`baas_refresh_<projectId>`) share their path. */
const REFRESH_COOKIES = `${REFRESH_COOKIE}_`;

const pathOf = (name: string) =>
  PATHS.get(name) ?? (name.startsWith(REFRESH_COOKIES) ? REFRESH_COOKIE_PATH : '/');

export interface CookiePolicy {
  /** The name a cookie has on the wire. */
  wire(name: string): string;
  /** Writes a cookie (a null value clears it). */
  set(ctx: Context, cookie: CookieToSet): void;
}

/** `tls`: the role's external URL is https (PUBLIC_URL, DASHBOARD_URL). */
export function cookiePolicy(tls: boolean): CookiePolicy {
  const wire = (name: string) => {
    if (!tls) return name;
    return pathOf(name) === '/' ? `__Host-${name}` : `__Secure-${name}`;
  };
  return {
    wire,
    set(ctx, cookie) {
      const secure = tls || ctx.secure;
      // Behind a TLS proxy that Koa is not told to trust, the request looks plain; the cookies
      // module refuses a Secure cookie there unless told the connection is secure.
      if (secure) ctx.cookies.secure = true;
      ctx.cookies.set(wire(cookie.name), cookie.value, {
        httpOnly: true,
        sameSite: 'lax',
        secure,
        path: cookie.path ?? '/',
        maxAge: cookie.value === null ? 0 : cookie.maxAgeMs,
        overwrite: true,
      });
    },
  };
}
