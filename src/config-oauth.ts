// The social-login providers of end users in the settings: OAUTH_<PROVIDER>_* read by loadConfig
// (config.ts), with each provider's default endpoints.
import type { Reader } from './config-reader.js';

export type OAuthProviderName = 'github' | 'google';

export interface OAuthProviderConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly userinfoUrl: string;
  /** GitHub only: the list of the account's addresses with their verification state. */
  readonly emailsUrl: string | undefined;
}

const OAUTH_DEFAULTS: Record<OAuthProviderName, Omit<OAuthProviderConfig, 'clientId' | 'clientSecret'>> = {
  github: {
    authorizeUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userinfoUrl: 'https://api.github.com/user',
    emailsUrl: 'https://api.github.com/user/emails',
  },
  google: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    emailsUrl: undefined,
  },
};

/** OAUTH_<PROVIDER>_CLIENT_ID / _CLIENT_SECRET enable a provider; its endpoints can be replaced. */
export function oauthProvider(r: Reader, name: OAuthProviderName): OAuthProviderConfig | undefined {
  const prefix = `OAUTH_${name.toUpperCase()}_`;
  const clientId = r.optional(`${prefix}CLIENT_ID`);
  if (!clientId) return undefined;
  const defaults = OAUTH_DEFAULTS[name];
  const web = ['http:', 'https:'];
  return {
    clientId,
    clientSecret: r.string(`${prefix}CLIENT_SECRET`),
    authorizeUrl: r.url(`${prefix}AUTHORIZE_URL`, web, defaults.authorizeUrl) ?? '',
    tokenUrl: r.url(`${prefix}TOKEN_URL`, web, defaults.tokenUrl) ?? '',
    userinfoUrl: r.url(`${prefix}USERINFO_URL`, web, defaults.userinfoUrl) ?? '',
    emailsUrl: defaults.emailsUrl && r.url(`${prefix}EMAILS_URL`, web, defaults.emailsUrl),
  };
}
