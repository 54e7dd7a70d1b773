// Developer accounts and dashboard sessions: sign-up (confirmed by mail), login, logout, me,
// password change.
import type { operations } from '../../generated/dashboard.js';
import type { CookieToSet, Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import { SESSION_COOKIE, SESSION_TTL_MS } from '../services/accounts.js';
import { requireDeveloper } from '../services/projects.js';
import type { Developer } from '../services/types.js';
import { limitsOf, type PlanTable } from '../lib/plan-table.js';
import { plansView } from './admin-plans.js';

type Ops = operations;

const sessionCookie = (token: string | null): CookieToSet => ({
  name: SESSION_COOKIE,
  value: token,
  maxAgeMs: SESSION_TTL_MS,
});

const developerView = (d: Developer, plans: PlanTable) => ({
  ...d,
  projectLimit: limitsOf(plans, { limits: {} }, d.plan).projectsPerDeveloper,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

export function accountHandlers({ accounts, signup, plans, planSettings, developerInvitations }: Services) {
  const signUpDeveloper: Handler<Ops['signUpDeveloper']> = async ({ body }, ctx) => {
    const data = await signup.request(body.email, body.password, body.name ?? null, ctx.ip);
    return {
      status: 201,
      body: { success: true, data, message: 'Check your mail to finish signing up' },
    };
  };

  const confirmDeveloperSignup: Handler<Ops['confirmDeveloperSignup']> = async ({ body }) => {
    const { developer, sessionToken } = await signup.confirm(body.token, body.password);
    return {
      status: 201,
      body: {
        success: true,
        data: { developer: developerView(developer, plans) },
        message: 'Account created',
      },
      cookies: [sessionCookie(sessionToken)],
    };
  };

  const signUpByInvitation: Handler<Ops['signUpByInvitation']> = async ({ body }) => {
    const { developer, sessionToken } = await developerInvitations.signUp(
      body.token,
      body.password,
      body.name?.trim() || null,
    );
    return {
      status: 201,
      body: {
        success: true,
        data: { developer: developerView(developer, plans) },
        message: 'Account created',
      },
      cookies: [sessionCookie(sessionToken)],
    };
  };

  const logInDeveloper: Handler<Ops['logInDeveloper']> = async ({ body }, ctx) => {
    const { developer, sessionToken } = await accounts.login(body.email, body.password, ctx.ip);
    return {
      status: 200,
      body: { success: true, data: { developer: developerView(developer, plans) }, message: 'Logged in' },
      cookies: [sessionCookie(sessionToken)],
    };
  };

  const logOutDeveloper: Handler<Ops['logOutDeveloper']> = async ({ cookies }) => {
    await accounts.logout(cookies.get(SESSION_COOKIE));
    return {
      status: 200,
      body: { success: true, data: {}, message: 'Logged out' },
      cookies: [sessionCookie(null)],
    };
  };

  const getCurrentDeveloper: Handler<Ops['getCurrentDeveloper']> = async (_input, ctx) => ({
    status: 200,
    body: { success: true, data: { developer: developerView(requireDeveloper(ctx), plans) }, message: '' },
  });

  const changeDeveloperPassword: Handler<Ops['changeDeveloperPassword']> = async ({ body, cookies }, ctx) => {
    const { revokedTokens } = await accounts.changePassword(
      requireDeveloper(ctx),
      body.currentPassword,
      body.newPassword,
      cookies.get(SESSION_COOKIE),
    );
    const message =
      revokedTokens === 0
        ? 'Password changed'
        : `Password changed; ${revokedTokens} access token${revokedTokens === 1 ? ' was' : 's were'} revoked`;
    return { status: 200, body: { success: true, data: {}, message } };
  };

  const listPlans: Handler<Ops['listPlans']> = async () => ({
    status: 200,
    body: { success: true, data: plansView(plans, planSettings.refreshMs), message: '' },
  });

  return {
    listPlans,
    signUpDeveloper,
    confirmDeveloperSignup,
    signUpByInvitation,
    logInDeveloper,
    logOutDeveloper,
    getCurrentDeveloper,
    changeDeveloperPassword,
  };
}

export { developerView };
