// What sign-up, login, refresh and social exchange answer with: the session's tokens in the body
// and the refresh token as an HttpOnly cookie scoped to /api/userAuth.
import type { components } from '../../generated/public.js';
import type { CookieToSet } from '../http/types.js';
import { REFRESH_COOKIE, REFRESH_COOKIE_PATH, REFRESH_TOKEN_TTL_MS } from '../services/user-auth/index.js';
import type { SessionTokens } from '../services/user-auth/sessions.js';

/** Sets the refresh cookie, or clears it with null. */
export const refreshCookie = (refreshToken: string | null): CookieToSet[] => [
  { name: REFRESH_COOKIE, value: refreshToken, maxAgeMs: REFRESH_TOKEN_TTL_MS, path: REFRESH_COOKIE_PATH },
];

export const sessionData = (user: Record<string, unknown>, session: SessionTokens) => ({
  user: user as components['schemas']['EndUser'],
  ...session,
});
