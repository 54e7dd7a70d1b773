// What sign-up, login, refresh and social exchange answer with: the session's tokens in the body
// and the refresh token as an HttpOnly cookie `baas_refresh_<projectId>` scoped to /api/userAuth, read and set only for
// requests the cookie rule allows (services/user-auth/app-origins.ts).
import type { components } from '../../generated/public.js';
import type { CookieToSet } from '../http/types.js';
import type { RequestContext } from '../services/context.js';
import {
  refreshCookieName,
  REFRESH_COOKIE_PATH,
  REFRESH_TOKEN_TTL_MS,
  refreshCookieUsable,
} from '../services/user-auth/index.js';
import type { SessionTokens } from '../services/user-auth/sessions.js';

type Headers = Record<string, string | string[] | undefined>;

const originOf = (headers: Headers) => {
  const value = headers.origin;
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The name of the key's project's refresh cookie, when this request may use it (no Origin, or one
 * of the project's app origins); undefined otherwise.
 */
const usableCookie = (headers: Headers, ctx: RequestContext) => {
  const { project } = ctx.principal;
  return project && refreshCookieUsable(project, originOf(headers))
    ? refreshCookieName(project.id)
    : undefined;
};

/** Sets the refresh cookie, or clears it with null; nothing when the request may not use it. */
export const refreshCookie = (
  refreshToken: string | null,
  headers: Headers,
  ctx: RequestContext,
): CookieToSet[] | undefined => {
  const name = usableCookie(headers, ctx);
  return name
    ? [{ name, value: refreshToken, maxAgeMs: REFRESH_TOKEN_TTL_MS, path: REFRESH_COOKIE_PATH }]
    : undefined;
};

/** The refresh cookie's value, when the request may use it. */
export const refreshCookieValue = (
  cookies: { get(name: string): string | undefined },
  headers: Headers,
  ctx: RequestContext,
) => {
  const name = usableCookie(headers, ctx);
  return name ? cookies.get(name) : undefined;
};

export const sessionData = (user: Record<string, unknown>, session: SessionTokens) => ({
  user: user as components['schemas']['EndUser'],
  ...session,
});
