// End users of the project (`/api/userAuth`): sign-up, log-in, log-out, one refresh in flight
// however many requests need it (the refresh token rotates on each use), reuse detection surfaced
// as a sign-out, verification, password reset, and social log-in with PKCE.
import { MongobaasError } from './errors.js';
import type { SessionStore } from './session-store.js';
import type { TokenSource, Transport } from './transport.js';

export interface Session<User = AuthUser> {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds when the access token expires. */
  expiresAt: number;
  user: User;
}

export interface AuthUser {
  _id: string;
  email: string;
  [field: string]: unknown;
}

export type AuthEvent = 'SIGNED_IN' | 'SIGNED_OUT' | 'TOKEN_REFRESHED' | 'USER_UPDATED';
export type AuthListener<User> = (event: AuthEvent, session: Session<User> | null) => void;

interface SessionAnswer<User> {
  user: User;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/** Refresh this long before the access token's expiry, so a request never carries a dying one. */
const EARLY_MS = 10_000;
const VERIFIER_KEY = 'pkce-verifier';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

export class Auth<User extends AuthUser = AuthUser> implements TokenSource {
  private session: Session<User> | null | undefined;
  private refreshing: Promise<Session<User> | null> | undefined;
  private readonly listeners = new Set<AuthListener<User>>();
  private readonly storageKey: string;

  constructor(
    private readonly http: Transport,
    private readonly store: SessionStore,
    storageKey?: string,
  ) {
    this.storageKey = storageKey ?? `mongobaas.session.${fingerprint(`${http.url} ${http.key}`)}`;
  }

  /** The stored session, if any (read once from the store). */
  async getSession(): Promise<Session<User> | null> {
    if (this.session === undefined) {
      const text = await this.store.get(this.storageKey);
      try {
        this.session = text ? (JSON.parse(text) as Session<User>) : null;
      } catch {
        this.session = null;
      }
    }
    return this.session;
  }

  onAuthChange(listener: AuthListener<User>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  signUp(fields: { email: string; password: string; name?: string } & Record<string, unknown>) {
    return this.start('/api/userAuth/signup', fields);
  }

  signIn(credentials: { email: string; password: string }) {
    return this.start('/api/userAuth/login', credentials);
  }

  /** Revokes the session on the service (its refresh family) and forgets it here. */
  async signOut(): Promise<void> {
    const session = await this.getSession();
    if (!session) return;
    try {
      await this.http.data('POST', '/api/userAuth/logout', {
        body: { refreshToken: session.refreshToken },
        auth: false,
      });
    } finally {
      await this.save(null, 'SIGNED_OUT');
    }
  }

  /**
   * A fresh access token. Concurrent callers share one request: the refresh token is single use,
   * so a second refresh with it would look like theft and end the session.
   */
  refresh(): Promise<Session<User> | null> {
    this.refreshing ??= this.refreshNow().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  async getUser(): Promise<User> {
    const user = await this.http.data<User>('GET', '/api/userAuth/me');
    await this.patchUser(user);
    return user;
  }

  async updateProfile(fields: Partial<User> & Record<string, unknown>): Promise<User> {
    const user = await this.http.data<User>('PUT', '/api/userAuth/update-profile', { body: fields });
    await this.patchUser(user);
    return user;
  }

  /** Signs out every other session of the user; this one stays. */
  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    const session = await this.getSession();
    await this.http.data('PUT', '/api/userAuth/change-password', {
      body: { currentPassword, newPassword, ...(session ? { refreshToken: session.refreshToken } : {}) },
    });
  }

  verifyEmail(email: string, otp: string) {
    return this.http.data<unknown>('POST', '/api/userAuth/verify-email', {
      body: { email, otp },
      auth: false,
    });
  }

  resendVerification(email: string) {
    return this.http.data<unknown>('POST', '/api/userAuth/resend-verification-otp', {
      body: { email },
      auth: false,
    });
  }

  requestPasswordReset(email: string) {
    return this.http.data<unknown>('POST', '/api/userAuth/request-password-reset', {
      body: { email },
      auth: false,
    });
  }

  resetPassword(email: string, otp: string, newPassword: string) {
    return this.http.data<unknown>('POST', '/api/userAuth/reset-password', {
      body: { email, otp, newPassword },
      auth: false,
    });
  }

  /**
   * The URL that starts a social log-in (send the browser there). A PKCE verifier is kept in the
   * session store, so the code that comes back to `redirectUrl` works on any origin.
   */
  async socialSignInUrl(provider: 'github' | 'google', redirectUrl: string): Promise<string> {
    const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
    await this.store.set(`${this.storageKey}.${VERIFIER_KEY}`, verifier);
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
    return this.http.href(`/api/userAuth/social/${provider}/start`, {
      key: this.http.key,
      redirectUrl,
      codeChallenge: base64url(new Uint8Array(digest)),
    });
  }

  /** Swaps the `code` of the page social log-in returned to for a session. */
  async exchangeCode(code: string): Promise<Session<User>> {
    const slot = `${this.storageKey}.${VERIFIER_KEY}`;
    const codeVerifier = await this.store.get(slot);
    await this.store.remove(slot);
    return this.start('/api/userAuth/social/exchange', codeVerifier ? { code, codeVerifier } : { code });
  }

  // TokenSource: the transport asks for the token before each request, and again once on expiry.
  async accessToken(): Promise<string | null> {
    const session = await this.getSession();
    if (!session) return null;
    if (session.expiresAt - EARLY_MS > Date.now()) return session.accessToken;
    return (await this.refresh())?.accessToken ?? null;
  }

  async renew(expired: string): Promise<string | null> {
    const session = await this.getSession();
    if (session && session.accessToken !== expired) return session.accessToken;
    return (await this.refresh())?.accessToken ?? null;
  }

  private async start(path: string, body: Record<string, unknown>): Promise<Session<User>> {
    const answer = await this.http.data<SessionAnswer<User>>('POST', path, { body, auth: false });
    const session = sessionOf(answer);
    await this.save(session, 'SIGNED_IN');
    return session;
  }

  private async refreshNow(): Promise<Session<User> | null> {
    const session = await this.getSession();
    if (!session) return null;
    try {
      const answer = await this.http.data<SessionAnswer<User>>('POST', '/api/userAuth/refresh-token', {
        body: { refreshToken: session.refreshToken },
        auth: false,
      });
      const next = sessionOf(answer);
      await this.save(next, 'TOKEN_REFRESHED');
      return next;
    } catch (err) {
      // Refused (spent, reused, revoked, expired): the session is over. A network failure keeps it.
      if (err instanceof MongobaasError && err.status >= 400 && err.status < 500 && err.status !== 429) {
        await this.save(null, 'SIGNED_OUT');
        return null;
      }
      throw err;
    }
  }

  private async patchUser(user: User) {
    const session = await this.getSession();
    if (session) await this.save({ ...session, user }, 'USER_UPDATED');
  }

  private async save(session: Session<User> | null, event: AuthEvent) {
    this.session = session;
    if (session) await this.store.set(this.storageKey, JSON.stringify(session));
    else await this.store.remove(this.storageKey);
    for (const listener of this.listeners) listener(event, session);
  }
}

/** A short name per installation and key for the store, that holds no part of the key. */
function fingerprint(text: string): string {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash * 33) ^ text.charCodeAt(i)) >>> 0;
  return hash.toString(36);
}

function sessionOf<User>(answer: SessionAnswer<User>): Session<User> {
  return {
    accessToken: answer.accessToken,
    refreshToken: answer.refreshToken,
    expiresAt: Date.now() + answer.expiresIn * 1000,
    user: answer.user,
  };
}
