// End-user authentication of a project (`/api/userAuth/*`): accounts, sessions, codes by mail and
// social login, built once from the process dependencies.
import type { Deps } from '../../deps.js';
import type { Mailer } from '../../mail/sender.js';
import { usersRepo } from '../../db/users.js';
import { authTokensRepo } from '../../db/auth-tokens.js';
import type { CollectionDef, Project } from '../types.js';
import type { EndUserTokens } from '../tokens.js';
import type { EventBus } from '../events.js';
import { authGuard, userDisabled } from './guard.js';
import { sessionsService } from './sessions.js';
import type { AuthHooks } from '../functions/auth-hooks.js';
import { codesService } from './codes.js';
import { rateLimiter } from './rate-limits.js';
import { accountsPart } from './accounts.js';
import { recoveryPart } from './recovery.js';
import { socialPart } from './social.js';
import type { UserAuthKit } from './kit.js';
import type { RequestContext } from '../context.js';
import { badRequest, unauthorized } from '../../http/errors.js';
import type { DatabaseQuota } from '../data/quota.js';
import { chargedUsers } from './usage.js';

export { REFRESH_COOKIE, REFRESH_COOKIE_PATH, REFRESH_TOKEN_TTL_MS, refreshCookieName } from './sessions.js';
export { SECRET_USER_FIELDS } from './fields.js';
export { refreshCookieUsable } from './app-origins.js';
export {
  OAUTH_EXCHANGE_TTL_MS,
  OAUTH_STATE_COOKIE,
  OAUTH_STATE_COOKIE_PATH,
  OAUTH_STATE_TTL_MS,
} from './social.js';

const missingRefreshToken = () =>
  badRequest(
    'A refresh token is required: send refreshToken in the body, the x-refresh-token header or the baas_refresh_<projectId> cookie',
    undefined,
    'MISSING_REFRESH_TOKEN',
  );

export interface UserAuthDeps {
  deps: Deps;
  mailer: Mailer;
  tokens: EndUserTokens;
  events: EventBus;
  findUsersDefinition: (projectId: string) => Promise<CollectionDef | undefined>;
  findProject: (projectId: string) => Promise<Project | undefined>;
  quota: DatabaseQuota;
  /** The database holding a project's end users (managed, or the project's own). */
  projectDb?: Parameters<typeof usersRepo>[0];
  /** beforeSignUp and tokenClaims (docs/functions.md). */
  hooks?: AuthHooks;
}

export function userAuthService({
  deps,
  mailer,
  tokens,
  events,
  findUsersDefinition,
  findProject,
  quota,
  projectDb = (projectId) => deps.db.project(projectId),
  hooks,
}: UserAuthDeps) {
  const authTokens = authTokensRepo(deps.db.platform);
  const kit: UserAuthKit = {
    guard: authGuard(findUsersDefinition),
    users: chargedUsers(usersRepo(projectDb), quota),
    quota,
    sessions: sessionsService(authTokens, tokens, hooks?.claims),
    hooks,
    codes: codesService(authTokens, mailer, deps.config.encryptionKey, {
      cache: deps.cache,
      perProjectPerHour: deps.config.systemMailPerProjectPerHour,
      perAddressPerHour: deps.config.systemMailPerAddressPerHour,
    }),
    limits: rateLimiter(deps.cache),
    events,
    signupsPerHour: deps.config.userAuthSignupsPerHour,
  };
  return {
    ...accountsPart(kit),
    ...recoveryPart(kit),
    social: socialPart(kit, authTokens, deps.config, findProject),

    async refresh(ctx: RequestContext, refreshToken: string | undefined) {
      const { project } = await kit.guard.scope(ctx);
      if (!refreshToken) throw missingRefreshToken();
      const { userId: _userId, ...session } = await kit.sessions.refresh(
        project.id,
        refreshToken,
        ctx.log,
        async (userId) => {
          const found = await kit.users.findById(project.id, userId);
          if (!found) throw unauthorized('The user of this token no longer exists', 'USER_NOT_FOUND');
          if (found.user.disabled === true) throw userDisabled();
        },
      );
      return session;
    },

    async logout(ctx: RequestContext, refreshToken: string | undefined): Promise<void> {
      const { project } = await kit.guard.scope(ctx);
      if (!refreshToken) throw missingRefreshToken();
      await kit.sessions.logout(project.id, refreshToken);
    },

    sessions: kit.sessions,
    codes: kit.codes,
    guard: kit.guard,
  };
}

export type UserAuthService = ReturnType<typeof userAuthService>;
