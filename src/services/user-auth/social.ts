// Social login: OAuth2 authorization code with a server-side `state` (single use, 10 minutes,
// bound to the project, the provider, the app's redirect URL and, by a cookie, to the browser that
// started the flow, against login CSRF), PKCE, accounts linked only through a provider-verified
// email, and a one-time code (2 minutes) that the app's callback page swaps for the session
// tokens. That code is bound to the starting browser too (a cookie renewed at the callback, or the
// app's own PKCE verifier), so a code lured into another browser signs no one in.
import { timingSafeEqual } from 'node:crypto';
import { ApiError, badRequest } from '../../http/errors.js';
import { hashPassword } from '../../lib/passwords.js';
import { randomToken, sha256 } from '../../lib/secrets.js';
import type { Config, OAuthProviderName } from '../../config.js';
import type { AuthTokensRepo } from '../../db/auth-tokens.js';
import type { RequestContext } from '../context.js';
import type { Logger } from '../../lib/logger.js';
import type { CollectionDef, Project } from '../types.js';
import { redirectTarget } from './app-origins.js';
import { AUTH_MANAGED_FIELDS, userView } from './fields.js';
import { validateDocument } from '../schema/validate-document.js';
import { assertRoomForUser } from './usage.js';
import { insertAnnounced } from './new-user.js';
import { checkedHookFields } from './accounts.js';
import { normalizeEmail, takeSignup, TOO_MANY_SIGNUPS, type UserAuthKit } from './kit.js';
import { userDisabled } from './guard.js';
import { oauthClient, ProviderError, type OAuthClient, type ProviderProfile } from './oauth-providers.js';

export { redirectTarget };

const STATE_TTL_MS = 10 * 60_000;
const EXCHANGE_TTL_MS = 2 * 60_000;

/** Set at start (the state) and renewed at the callback (the code's binding): one browser throughout. */
export const OAUTH_STATE_COOKIE = 'baas_oauth_state';
export const OAUTH_STATE_COOKIE_PATH = '/api/userAuth/social';
export const OAUTH_STATE_TTL_MS = STATE_TTL_MS;
export const OAUTH_EXCHANGE_TTL_MS = EXCHANGE_TTL_MS;

/** Equal digests, compared in constant time. */
const sameSecret = (a: string, b: string) => timingSafeEqual(Buffer.from(sha256(a)), Buffer.from(sha256(b)));
const sameDigest = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const notThisBrowser = () =>
  badRequest(
    'This code belongs to a login started in another browser: start the social login again here',
    undefined,
    'OAUTH_BROWSER_MISMATCH',
  );

/** What the exchange presents to prove it runs in the browser that started the flow. */
export interface ExchangeProof {
  /** The OAUTH_STATE_COOKIE of the request. */
  cookie: string | undefined;
  /** The app's PKCE verifier, when it sent a `codeChallenge` at start. */
  codeVerifier: string | undefined;
}

function withQuery(url: string, params: Record<string, string>): string {
  const out = new URL(url);
  for (const [key, value] of Object.entries(params)) out.searchParams.set(key, value);
  return out.toString();
}

/** Fields of the provider profile that the users schema can take. */
function profileFields(def: CollectionDef, profile: ProviderProfile): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Only declared String fields, as for a sign-up (a protected one is the developer's to set, even
  // from the provider's profile); the display name also when undeclared.
  const field = (name: string) => def.fields.find((f) => f.name === name);
  const fits = (name: string) =>
    field(name) ? field(name)!.type === 'String' && !field(name)!.protected : name === 'name';
  if (profile.name && fits('name')) out.name = profile.name;
  if (profile.avatar && fits('avatar')) out.avatar = profile.avatar;
  return out;
}

/**
 * The custom fields of a new social account: what the profile gives, checked against the users
 * schema like a sign-up (defaults filled in, required fields present). A required field without a
 * default that the provider cannot fill leaves the account out: the app gets `profile_incomplete`
 * and the person can sign up with email and password, filling that field in.
 */
function newAccountFields(
  def: CollectionDef,
  profile: ProviderProfile,
  hookFields: Record<string, unknown> = {},
): Record<string, unknown> {
  const custom = {
    mode: 'schema' as const,
    fields: def.fields.filter((f) => !AUTH_MANAGED_FIELDS.has(f.name)),
  };
  const picked = { ...profileFields(def, profile), ...hookFields };
  // An undeclared display name is kept as it is, like a sign-up's.
  const displayName = custom.fields.some((f) => f.name === 'name') ? undefined : picked.name;
  if (displayName !== undefined) delete picked.name;
  try {
    const fields = validateDocument(custom, picked, 'create');
    return displayName === undefined ? fields : { ...fields, name: displayName };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const missing = [...new Set((err.details ?? []).map((d) => d.path.split('.')[0]!))];
    throw new ProviderError(
      'profile_incomplete',
      `The account needs fields the provider does not supply (${missing.join(', ')}); ` +
        'sign up with email and password instead',
    );
  }
}

export function socialPart(
  kit: UserAuthKit,
  grants: AuthTokensRepo,
  config: Pick<Config, 'oauth' | 'publicUrl'>,
  findProject: (id: string) => Promise<Project | undefined>,
) {
  const clients = new Map<OAuthProviderName, OAuthClient>();
  for (const [name, settings] of Object.entries(config.oauth) as [
    OAuthProviderName,
    typeof config.oauth.github,
  ][]) {
    if (settings) clients.set(name, oauthClient(name, settings));
  }
  const callbackUrl = (provider: string) => `${config.publicUrl}/api/userAuth/social/${provider}/callback`;

  /** beforeSignUp for a new social account; a refusal or failure reaches the app as `signup_refused`. */
  async function socialSignUpHook(
    project: Project,
    def: CollectionDef,
    email: string,
    fields: Record<string, unknown>,
    provider: string,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const set = await kit.hooks?.beforeSignUp(project, { email, fields, provider });
      return set && checkedHookFields(def, set);
    } catch (err) {
      if (err instanceof ApiError) throw new ProviderError('signup_refused', err.message);
      throw err;
    }
  }

  async function linkOrCreate(
    project: Project,
    def: CollectionDef,
    provider: string,
    profile: ProviderProfile,
    ip: string,
  ) {
    const identity = { provider, id: profile.id };
    const linked = await kit.users.findByIdentity(project.id, identity);
    if (linked) return linked.user;
    if (!profile.email || !profile.emailVerified) {
      throw new ProviderError('email_not_verified', 'The provider did not confirm a verified email address');
    }
    const email = normalizeEmail(profile.email);
    const existing = await kit.users.findByEmail(project.id, email);
    if (existing) {
      // An unverified account may have been registered by someone else with this address: the
      // provider proves the mailbox, so that password and its sessions stop working.
      const takeover = existing.user.emailVerified !== true;
      const result = await kit.users.update(project.id, existing.user._id, {
        set: { emailVerified: true },
        addIdentity: identity,
        ...(takeover ? { passwordHash: await hashPassword(randomToken(32)) } : {}),
      });
      if (!result?.ok) throw new ProviderError('account_conflict', 'The account could not be linked');
      if (takeover) await kit.sessions.revokeAll(project.id, existing.user._id);
      return result.user;
    }
    // A new account is a sign-up: it counts against the address's sign-ups of the hour, beside
    // the email-and-password ones (USER_AUTH_SIGNUPS_PER_HOUR).
    await takeSignup(kit, project.id, ip).catch((err: unknown) => {
      throw err instanceof ApiError && err.status === 429
        ? new ProviderError('too_many_signups', TOO_MANY_SIGNUPS)
        : err;
    });
    const set = await socialSignUpHook(project, def, email, profileFields(def, profile), provider);
    const fields = {
      ...newAccountFields(def, profile, set),
      email,
      emailVerified: true,
      identities: [identity],
    };
    const passwordHash = await hashPassword(randomToken(32));
    await assertRoomForUser(kit.users, kit.quota, project, fields, passwordHash);
    const result = await insertAnnounced(kit, project.id, def, fields, passwordHash);
    if (!result.ok)
      throw new ProviderError('account_conflict', 'An account with this email was created meanwhile');
    return result.user;
  }

  return {
    /**
     * The provider's authorization URL to redirect the browser to, and the state, which the
     * caller sets as the OAUTH_STATE_COOKIE of that browser.
     */
    async start(
      ctx: RequestContext,
      provider: OAuthProviderName,
      redirectUrl: string | undefined,
      appCodeChallenge?: string,
    ): Promise<{ location: string; state: string }> {
      const { project } = await kit.guard.scope(ctx);
      const client = clients.get(provider);
      if (!client) {
        throw badRequest(
          `Social login with ${provider} is not set up on this installation: its operator sets OAUTH_${provider.toUpperCase()}_CLIENT_ID and OAUTH_${provider.toUpperCase()}_CLIENT_SECRET (docs/configuration.md).`,
          undefined,
          'PROVIDER_NOT_CONFIGURED',
        );
      }
      const target = redirectTarget(project, redirectUrl);
      const state = randomToken(32);
      const codeVerifier = randomToken(48);
      await grants.putGrant(
        sha256(state),
        {
          kind: 'state',
          projectId: project.id,
          provider,
          redirectUrl: target,
          codeVerifier,
          ...(appCodeChallenge ? { appCodeChallenge } : {}),
        },
        STATE_TTL_MS,
      );
      return {
        location: client.authorizeUrl({ state, redirectUri: callbackUrl(provider), codeVerifier }),
        state,
      };
    },

    /**
     * The provider's redirect back. Without a valid state nothing is known about the app, so that
     * is a 400; every later outcome redirects to the app with `code` or `error`. `browserState` is
     * the OAUTH_STATE_COOKIE of the browser: another browser (a victim lured to an attacker's
     * callback URL) gets `invalid_state` and no code. With a code comes `binding`, the nonce the
     * caller puts in that cookie in place of the state: the exchange of the code checks it.
     */
    async callback(
      provider: OAuthProviderName,
      query: { code?: string; state?: string; error?: string },
      browserState: string | undefined,
      /** The browser's address: a new account counts against its sign-ups of the hour. */
      ip: string,
      log: Logger,
    ): Promise<{ location: string; binding?: string }> {
      const grant = query.state ? await grants.takeGrant(sha256(query.state), 'state') : undefined;
      if (!grant || grant.provider !== provider || !grant.redirectUrl || !grant.codeVerifier) {
        throw badRequest(
          'Invalid or expired login state; start the social login again',
          undefined,
          'INVALID_OAUTH_STATE',
        );
      }
      const fail = (code: string, description: string) => ({
        location: withQuery(grant.redirectUrl!, { error: code, error_description: description }),
      });
      if (!browserState || !sameSecret(browserState, query.state!)) {
        return fail('invalid_state', 'The login was not started in this browser; start it again');
      }
      if (query.error) return fail('access_denied', 'The provider did not grant access');
      const client = clients.get(provider);
      const project = await findProject(grant.projectId);
      if (!client || !project || !query.code) return fail('invalid_request', 'The login cannot be completed');
      try {
        const { users: def } = await kit.guard.scopeOf(project);
        const profile = await client.profile({
          code: query.code,
          redirectUri: callbackUrl(provider),
          codeVerifier: grant.codeVerifier,
        });
        const user = await linkOrCreate(project, def, provider, profile, ip);
        const code = randomToken(32);
        const binding = randomToken(32);
        await grants.putGrant(
          sha256(code),
          {
            kind: 'exchange',
            projectId: project.id,
            userId: user._id,
            ...(grant.appCodeChallenge ? { appCodeChallenge: grant.appCodeChallenge } : {}),
            browserBinding: sha256(binding),
          },
          EXCHANGE_TTL_MS,
        );
        return { location: withQuery(grant.redirectUrl, { code }), binding };
      } catch (err) {
        if (err instanceof ProviderError) return fail(err.code, err.message);
        if (err instanceof Error && 'status' in err) return fail('login_unavailable', err.message);
        log.error({ err, provider }, 'social login failed');
        return fail('server_error', 'The login could not be completed');
      }
    },

    /**
     * Swaps the one-time code of the callback for a session, in the browser that started the flow
     * only: the app's PKCE verifier when it sent a challenge at start, else the cookie the callback
     * set. The code is spent either way, so a code lured into another browser is gone.
     */
    async exchange(ctx: RequestContext, code: string, proof: ExchangeProof) {
      const { project } = await kit.guard.scope(ctx);
      const grant = await grants.takeGrant(sha256(code), 'exchange', project.id);
      const found = grant?.userId ? await kit.users.findById(project.id, grant.userId) : undefined;
      if (!found) throw badRequest('Invalid or expired code', undefined, 'INVALID_EXCHANGE_CODE');
      const bound = grant!.appCodeChallenge
        ? proof.codeVerifier !== undefined && sameDigest(sha256(proof.codeVerifier), grant!.appCodeChallenge)
        : proof.cookie !== undefined &&
          grant!.browserBinding !== undefined &&
          sameDigest(sha256(proof.cookie), grant!.browserBinding);
      if (!bound) throw notThisBrowser();
      if (found.user.disabled === true) throw userDisabled();
      return { user: userView(found.user), session: await kit.sessions.start(project.id, found.user._id) };
    },
  };
}
