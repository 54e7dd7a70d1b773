// /api/userAuth/social/*: the browser-facing redirects of social login and the exchange of the
// one-time code for a session.
import type { operations } from '../../generated/public.js';
import type { CookieToSet, Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import {
  OAUTH_EXCHANGE_TTL_MS,
  OAUTH_STATE_COOKIE,
  OAUTH_STATE_COOKIE_PATH,
  OAUTH_STATE_TTL_MS,
} from '../services/user-auth/index.js';
import { refreshCookie, sessionData } from './user-auth-session.js';

const redirect = (location: string, cookies?: CookieToSet[]) => ({
  status: 302 as const,
  headers: { Location: location, 'Cache-Control': 'no-store' },
  body: { success: true as const, data: { location }, message: 'Redirecting' },
  cookies,
});

/**
 * Binds the flow to this browser: the state at start, the nonce the exchange code is bound to at
 * the callback (or nothing when the callback failed), cleared by the exchange.
 */
const stateCookie = (value: string | null | undefined, maxAgeMs = OAUTH_STATE_TTL_MS): CookieToSet[] => [
  { name: OAUTH_STATE_COOKIE, value: value ?? null, maxAgeMs, path: OAUTH_STATE_COOKIE_PATH },
];

export function socialLoginHandlers(services: Services) {
  // Read at call time: the handler map is also built without services (parity checks).
  const social = () => services.userAuth.social;

  const startSocialLogin: Handler<operations['startSocialLogin']> = async ({ params, query }, ctx) => {
    const { location, state } = await social().start(
      ctx,
      params.provider,
      query.redirectUrl,
      query.codeChallenge,
    );
    return redirect(location, stateCookie(state));
  };

  const completeSocialLogin: Handler<operations['completeSocialLogin']> = async (
    { params, query, cookies },
    ctx,
  ) => {
    const { location, binding } = await social().callback(
      params.provider,
      query,
      cookies.get(OAUTH_STATE_COOKIE),
      ctx.ip,
      ctx.log,
    );
    return redirect(location, stateCookie(binding, OAUTH_EXCHANGE_TTL_MS));
  };

  const exchangeSocialLoginCode: Handler<operations['exchangeSocialLoginCode']> = async (
    { body, headers, cookies },
    ctx,
  ) => {
    const { user, session } = await social().exchange(ctx, body.code, {
      cookie: cookies.get(OAUTH_STATE_COOKIE),
      codeVerifier: body.codeVerifier,
    });
    return {
      status: 200,
      body: { success: true, data: sessionData(user, session), message: 'Logged in' },
      cookies: [...stateCookie(null), ...(refreshCookie(session.refreshToken, headers, ctx) ?? [])],
    };
  };

  return { startSocialLogin, completeSocialLogin, exchangeSocialLoginCode };
}
