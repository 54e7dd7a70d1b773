// End-user access tokens: HS256 JWTs signed with a per-project secret (random, encrypted at rest
// in the project record), 15 minutes, claims `sub`/`userId` (the user id) and `pid` (the project
// id). A token of one project is refused by every other project.
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { decrypt, deriveKey, encrypt, randomToken } from '../lib/secrets.js';
import { unauthorized } from '../http/errors.js';
import type { ProjectsRepo } from '../db/projects.js';

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
const MAX_CACHED_SECRETS = 10_000;

/** Whether a user's token issued at `issuedAt` (seconds) was voided (user disabled, signed out, deleted). */
export type RevocationCheck = (
  projectId: string,
  userId: string,
  issuedAt: number | undefined,
) => Promise<boolean>;

export function endUserTokens(encryptionKey: Buffer, projects: ProjectsRepo, isRevoked?: RevocationCheck) {
  const sealingKey = deriveKey(encryptionKey, 'project-jwt-secret');
  // A project's secret never changes, so a decrypted copy can be kept; bounded, oldest out first.
  // It is kept as a KeyObject: given a string, jsonwebtoken first tries it as a public key (an
  // exception) and then builds a secret key from it, on every token it signs or verifies.
  const secrets = new Map<string, KeyObject>();

  async function secretOf(projectId: string): Promise<KeyObject> {
    const cached = secrets.get(projectId);
    if (cached) return cached;
    const sealed = await projects.jwtSecretEnc(projectId);
    if (!sealed) throw unauthorized('Invalid access token', 'INVALID_TOKEN');
    const secret = createSecretKey(Buffer.from(decrypt(sealingKey, sealed)));
    if (secrets.size >= MAX_CACHED_SECRETS) secrets.delete(secrets.keys().next().value!);
    secrets.set(projectId, secret);
    return secret;
  }

  return {
    /** A new sealed secret for a project being created. */
    newSealedSecret: () => encrypt(sealingKey, randomToken(48)),

    /** `ttlSeconds` other than the standard 15 minutes is for tests of expiry only. */
    async issue(
      projectId: string,
      userId: string,
      ttlSeconds = ACCESS_TOKEN_TTL_SECONDS,
      /** A tokenClaims hook's claims (docs/functions.md), under the one claim `app`. */
      appClaims?: Record<string, unknown>,
    ): Promise<{ accessToken: string; expiresIn: number }> {
      const payload = { userId, pid: projectId, ...(appClaims ? { app: appClaims } : {}) };
      const accessToken = jwt.sign(payload, await secretOf(projectId), {
        algorithm: 'HS256',
        subject: userId,
        expiresIn: ttlSeconds,
      });
      return { accessToken, expiresIn: ttlSeconds };
    },

    /** The user id of a valid token of this project; 401 otherwise. */
    async verify(projectId: string, token: string): Promise<string> {
      return (await this.claims(projectId, token)).userId;
    },

    /** A valid token's user and times (seconds since the epoch; long-lived streams end at `expiresAt`). */
    async claims(
      projectId: string,
      token: string,
    ): Promise<{ userId: string; issuedAt: number | undefined; expiresAt: number | undefined }> {
      let claims: jwt.JwtPayload;
      try {
        claims = jwt.verify(token, await secretOf(projectId), { algorithms: ['HS256'] }) as jwt.JwtPayload;
      } catch (err) {
        if (err instanceof jwt.TokenExpiredError) throw unauthorized('Access token expired', 'TOKEN_EXPIRED');
        throw unauthorized('Invalid access token', 'INVALID_TOKEN');
      }
      if (claims.pid !== projectId || typeof claims.sub !== 'string') {
        throw unauthorized('Invalid access token', 'INVALID_TOKEN');
      }
      if (isRevoked && (await isRevoked(projectId, claims.sub, claims.iat))) {
        throw unauthorized('Access token revoked; sign in again', 'TOKEN_REVOKED');
      }
      return { userId: claims.sub, issuedAt: claims.iat, expiresAt: claims.exp };
    },
  };
}

export type EndUserTokens = ReturnType<typeof endUserTokens>;
