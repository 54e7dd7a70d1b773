// OAuth2 authorization-code clients for the social login providers, endpoints from the config
// (OAUTH_<PROVIDER>_*): GitHub (profile from /user, verified addresses from /user/emails) and
// Google (OpenID Connect userinfo with email_verified). PKCE (S256) on both.
import { createHash } from 'node:crypto';
import type { OAuthProviderConfig, OAuthProviderName } from '../../config.js';

export const SOCIAL_PROVIDERS: readonly OAuthProviderName[] = ['github', 'google'];

export interface ProviderProfile {
  id: string;
  email: string | undefined;
  /** Only an address the provider says is verified may link to or create an account. */
  emailVerified: boolean;
  name?: string;
  avatar?: string;
}

/** A failure talking to the provider; its code is handed to the app's callback page. */
export class ProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const SCOPES: Record<OAuthProviderName, string> = {
  github: 'read:user user:email',
  google: 'openid email profile',
};
const TIMEOUT_MS = 10_000;

export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

async function getJson(url: string, init: RequestInit, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw new ProviderError('provider_unreachable', `The provider's ${what} endpoint could not be reached`);
  }
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok || body === undefined) {
    throw new ProviderError('provider_error', `The provider's ${what} endpoint answered ${res.status}`);
  }
  return body;
}

const str = (value: unknown) =>
  typeof value === 'string' && value ? value : typeof value === 'number' ? String(value) : undefined;

export interface OAuthClient {
  authorizeUrl(input: { state: string; redirectUri: string; codeVerifier: string }): string;
  /** Exchanges the code for the provider's access token and reads the profile with it. */
  profile(input: { code: string; redirectUri: string; codeVerifier: string }): Promise<ProviderProfile>;
}

export function oauthClient(name: OAuthProviderName, config: OAuthProviderConfig): OAuthClient {
  const headers = { accept: 'application/json', 'user-agent': 'mongobaas' };

  async function accessToken(code: string, redirectUri: string, codeVerifier: string): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: config.clientId,
      client_secret: config.clientSecret,
      code_verifier: codeVerifier,
    });
    const body = (await getJson(config.tokenUrl, { method: 'POST', headers, body: form }, 'token')) as Record<
      string,
      unknown
    >;
    const token = str(body.access_token);
    if (!token) throw new ProviderError('provider_error', 'The provider returned no access token');
    return token;
  }

  async function readProfile(token: string): Promise<ProviderProfile> {
    const auth = { ...headers, authorization: `Bearer ${token}` };
    const info = (await getJson(config.userinfoUrl, { headers: auth }, 'user info')) as Record<
      string,
      unknown
    >;
    if (name === 'google') {
      const id = str(info.sub);
      if (!id) throw new ProviderError('provider_error', 'The provider returned no user id');
      return {
        id,
        email: str(info.email),
        emailVerified: info.email_verified === true || info.email_verified === 'true',
        name: str(info.name),
        avatar: str(info.picture),
      };
    }
    const id = str(info.id);
    if (!id) throw new ProviderError('provider_error', 'The provider returned no user id');
    const emails = config.emailsUrl ? await getJson(config.emailsUrl, { headers: auth }, 'emails') : [];
    const list = (Array.isArray(emails) ? emails : []) as Array<Record<string, unknown>>;
    const verified = list.filter((e) => e.verified === true && str(e.email));
    const chosen = verified.find((e) => e.primary === true) ?? verified[0];
    return {
      id,
      email: str(chosen?.email) ?? str(info.email),
      emailVerified: chosen !== undefined,
      name: str(info.name) ?? str(info.login),
      avatar: str(info.avatar_url),
    };
  }

  return {
    authorizeUrl({ state, redirectUri, codeVerifier }) {
      const url = new URL(config.authorizeUrl);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('scope', SCOPES[name]);
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', pkceChallenge(codeVerifier));
      url.searchParams.set('code_challenge_method', 'S256');
      return url.toString();
    },
    async profile({ code, redirectUri, codeVerifier }) {
      return readProfile(await accessToken(code, redirectUri, codeVerifier));
    },
  };
}
