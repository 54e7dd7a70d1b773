// /api/userAuth/*: end-user accounts and sessions of a project (services/user-auth). The refresh
// token travels in the body and as the `baas_refresh_<projectId>` cookie; it is read from the body, the
// `x-refresh-token` header or the cookie, in that order (the cookie only where the rule of
// services/user-auth/app-origins.ts allows it).
import type { components, operations } from '../../generated/public.js';
import type { Handler, HandlerInput } from '../http/types.js';
import type { RequestContext } from '../services/context.js';
import type { Services } from '../services/index.js';
import { CODE_SENT_MESSAGE } from '../services/user-auth/recovery.js';
import { socialLoginHandlers } from './user-auth-social.js';
import { refreshCookie, refreshCookieValue, sessionData } from './user-auth-session.js';

type EndUser = components['schemas']['EndUser'];
type Op = keyof operations;

function refreshTokenOf(
  input: HandlerInput<operations[Op]>,
  fromBody: unknown,
  ctx: RequestContext,
): string | undefined {
  const header = input.headers['x-refresh-token'];
  const value =
    (typeof fromBody === 'string' && fromBody) ||
    (Array.isArray(header) ? header[0] : header) ||
    refreshCookieValue(input.cookies, input.headers, ctx);
  return value || undefined;
}

export function userAuthHandlers(services: Services) {
  const auth = services.userAuth;

  const signupEndUser: Handler<operations['signupEndUser']> = async ({ body, headers }, ctx) => {
    const { user, session } = await auth.signup(ctx, body);
    return {
      status: 201,
      body: { success: true, data: sessionData(user, session), message: 'User registered' },
      cookies: refreshCookie(session.refreshToken, headers, ctx),
    };
  };

  const loginEndUser: Handler<operations['loginEndUser']> = async ({ body, headers }, ctx) => {
    const { user, session } = await auth.login(ctx, body.email, body.password);
    return {
      status: 200,
      body: { success: true, data: sessionData(user, session), message: 'Logged in' },
      cookies: refreshCookie(session.refreshToken, headers, ctx),
    };
  };

  const refreshEndUserToken: Handler<operations['refreshEndUserToken']> = async (input, ctx) => {
    const session = await auth.refresh(ctx, refreshTokenOf(input, input.body?.refreshToken, ctx));
    return {
      status: 200,
      body: { success: true, data: session, message: 'Token refreshed' },
      cookies: refreshCookie(session.refreshToken, input.headers, ctx),
    };
  };

  const logoutEndUser: Handler<operations['logoutEndUser']> = async (input, ctx) => {
    await auth.logout(ctx, refreshTokenOf(input, input.body?.refreshToken, ctx));
    return {
      status: 200,
      body: { success: true, data: {}, message: 'Logged out' },
      cookies: refreshCookie(null, input.headers, ctx),
    };
  };

  const getEndUserProfile: Handler<operations['getEndUserProfile']> = async (_input, ctx) => ({
    status: 200,
    body: { success: true, data: (await auth.me(ctx)) as EndUser, message: '' },
  });

  const updateEndUserProfile: Handler<operations['updateEndUserProfile']> = async ({ body }, ctx) => ({
    status: 200,
    body: { success: true, data: (await auth.updateProfile(ctx, body)) as EndUser, message: 'Updated' },
  });

  const changeEndUserPassword: Handler<operations['changeEndUserPassword']> = async (input, ctx) => {
    const { currentPassword, newPassword, refreshToken } = input.body;
    const data = await auth.changePassword(
      ctx,
      currentPassword,
      newPassword,
      refreshTokenOf(input, refreshToken, ctx),
    );
    return {
      status: 200,
      body: { success: true, data, message: 'Password changed; other sessions signed out' },
    };
  };

  const verifyEndUserEmail: Handler<operations['verifyEndUserEmail']> = async ({ body }, ctx) => ({
    status: 200,
    body: {
      success: true,
      data: await auth.verifyEmail(ctx, body.email, body.otp),
      message: 'Email verified',
    },
  });

  const resendEndUserVerification: Handler<operations['resendEndUserVerification']> = async (
    { body },
    ctx,
  ) => {
    await auth.resendVerification(ctx, body.email);
    return { status: 200, body: { success: true, data: {}, message: CODE_SENT_MESSAGE } };
  };

  const requestEndUserPasswordReset: Handler<operations['requestEndUserPasswordReset']> = async (
    { body },
    ctx,
  ) => {
    await auth.requestPasswordReset(ctx, body.email);
    return { status: 200, body: { success: true, data: {}, message: CODE_SENT_MESSAGE } };
  };

  const resetEndUserPassword: Handler<operations['resetEndUserPassword']> = async ({ body }, ctx) => {
    await auth.resetPassword(ctx, body.email, body.otp, body.newPassword);
    return {
      status: 200,
      body: { success: true, data: {}, message: 'Password reset; sign in with the new password' },
    };
  };

  const getEndUserPublicProfile: Handler<operations['getEndUserPublicProfile']> = async (
    { params },
    ctx,
  ) => ({
    status: 200,
    body: {
      success: true,
      data: (await auth.publicProfile(ctx, params.username)) as { _id: string },
      message: '',
    },
  });

  return {
    signupEndUser,
    loginEndUser,
    refreshEndUserToken,
    logoutEndUser,
    getEndUserProfile,
    updateEndUserProfile,
    changeEndUserPassword,
    verifyEndUserEmail,
    resendEndUserVerification,
    requestEndUserPasswordReset,
    resetEndUserPassword,
    getEndUserPublicProfile,
    ...socialLoginHandlers(services),
  };
}
