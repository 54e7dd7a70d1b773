// Resolvers for the security schemes of the specs; each turns one credential into a facet of the
// request's Principal:
// - sessionCookie: the dashboard session; cookie-authenticated writes must come from an allowed
//   origin (SameSite=Lax cookie plus an Origin/Referer check against cross-site requests).
// - apiKey / apiKeyQuery: the project of an API key; `?key=` only for publishable keys; a
//   publishable key used from a browser must come from one of the project's allowed origins.
// - bearerAuth / accessTokenQuery: an end-user access token (header, or `?access_token=` where an
//   operation accepts it), verified against the API key's project.
// - internalSecret: the dashboard service calling the public one (INTERNAL_API_SECRET).
// - personalAccessToken: a developer's access token on the dashboard API (scripts, CI); no CSRF
//   check, since a browser never sends it by itself.
import type { Services } from '../services/index.js';
import { SESSION_COOKIE } from '../services/accounts.js';
import { ORIGIN_NOT_ALLOWED } from './cors.js';
import { forbidden, projectRestoring, unauthorized } from './errors.js';
import type { Principal } from '../services/context.js';
import type { SecurityInput, SecurityResolver } from './types.js';
import { firstHeader } from './headers.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const header = (input: SecurityInput, name: string) => firstHeader(input.headers, name);

function requestOrigin(input: SecurityInput): string | undefined {
  const origin = header(input, 'origin');
  if (origin && origin !== 'null') return origin;
  const referer = header(input, 'referer');
  if (!referer) return origin;
  try {
    return new URL(referer).origin;
  } catch {
    return 'invalid';
  }
}

export function securityResolvers(
  services: Services,
  dashboardOrigins: string[],
): Record<string, SecurityResolver> {
  const trusted = new Set(dashboardOrigins);

  async function projectFromKey(key: string, input: SecurityInput) {
    const { project, kind } = await services.projects.resolveApiKey(key);
    input.keyProject = project;
    // Clients are held back while a restore replaces the data: a write would be cleared or
    // mixed with the backup's, a read would see it half loaded.
    if (project.restoringId && !input.duringRestore && (await services.backups.stillRestoring(project)))
      throw projectRestoring();
    const origin = header(input, 'origin');
    const allowed = project.settings.allowedOrigins;
    if (kind === 'publishable' && origin && allowed.length > 0 && !allowed.includes(origin)) {
      throw forbidden(`Origin ${origin} is not allowed for this project`, ORIGIN_NOT_ALLOWED);
    }
    return { project, keyKind: kind };
  }

  async function endUserOf(token: string, resolved: Principal) {
    if (!resolved.project)
      throw unauthorized('An API key is required with a Bearer token', 'MISSING_API_KEY');
    const claims = await services.tokens.claims(resolved.project.id, token);
    return {
      endUser: {
        id: claims.userId,
        projectId: resolved.project.id,
        issuedAt: claims.issuedAt,
        expiresAt: claims.expiresAt,
      },
    };
  }

  return {
    async sessionCookie(input) {
      const token = input.cookies.get(SESSION_COOKIE);
      if (!token) return undefined;
      const developer = await services.accounts.sessionDeveloper(token);
      if (!developer) throw unauthorized('Session expired or invalid; log in again', 'INVALID_SESSION');
      if (!SAFE_METHODS.has(input.method)) {
        const origin = requestOrigin(input);
        if (origin !== undefined && !trusted.has(origin)) {
          throw forbidden('Cross-site request refused', 'CSRF_ORIGIN_MISMATCH');
        }
      }
      return { developer };
    },

    async apiKey(input) {
      const key = header(input, 'x-api-key');
      return key ? projectFromKey(key, input) : undefined;
    },

    async apiKeyQuery(input) {
      if (!input.queryKey) return undefined;
      if (!input.queryKey.startsWith('pk_live_')) {
        throw unauthorized('Only a publishable key may be sent as a query parameter', 'INVALID_API_KEY');
      }
      return projectFromKey(input.queryKey, input);
    },

    async personalAccessToken(input) {
      const authorization = header(input, 'authorization');
      if (!authorization) return undefined;
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      if (!match) throw unauthorized('Authorization must be "Bearer <access token>"', 'INVALID_ACCESS_TOKEN');
      return services.accessTokens.authenticate(match[1]!, input.method);
    },

    async internalSecret(input) {
      const secret = header(input, 'x-internal-secret');
      if (!secret) return undefined;
      if (!services.externalDb.acceptsInternalSecret(secret)) {
        throw unauthorized('Invalid internal secret', 'INVALID_INTERNAL_SECRET');
      }
      return { internal: true };
    },

    async bearerAuth(input, resolved) {
      const authorization = header(input, 'authorization');
      if (!authorization) return undefined;
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      if (!match) throw unauthorized('Authorization must be "Bearer <accessToken>"', 'INVALID_TOKEN');
      return endUserOf(match[1]!, resolved);
    },

    async accessTokenQuery(input, resolved) {
      return input.queryToken ? endUserOf(input.queryToken, resolved) : undefined;
    },
  };
}
