// /api/userAuth/social/*: the browser-facing redirects of social login and the exchange of the
// one-time code for a session.
import type { operations } from '../../generated/public.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import { refreshCookie, sessionData } from './user-auth-session.js';

const redirect = (location: string) => ({
  status: 302 as const,
  headers: { Location: location, 'Cache-Control': 'no-store' },
  body: { success: true as const, data: { location }, message: 'Redirecting' },
});

export function socialLoginHandlers(services: Services) {
  // Read at call time: the handler map is also built without services (parity checks).
  const social = () => services.userAuth.social;

  const startSocialLogin: Handler<operations['startSocialLogin']> = async ({ params, query }, ctx) =>
    redirect(await social().start(ctx, params.provider, query.redirectUrl));

  const completeSocialLogin: Handler<operations['completeSocialLogin']> = async ({ params, query }, ctx) =>
    redirect(await social().callback(params.provider, query, ctx.log));

  const exchangeSocialLoginCode: Handler<operations['exchangeSocialLoginCode']> = async (
    { body, headers },
    ctx,
  ) => {
    const { user, session } = await social().exchange(ctx, body.code);
    return {
      status: 200,
      body: { success: true, data: sessionData(user, session), message: 'Logged in' },
      cookies: refreshCookie(session.refreshToken, headers, ctx),
    };
  };

  return { startSocialLogin, completeSocialLogin, exchangeSocialLoginCode };
}
