// Secrets: API keys (random, stored as SHA-256), opaque tokens, and AES-256-GCM encryption of
// values kept at rest (connection strings, provider keys, per-project JWT secrets). Sub-keys are
// derived from ENCRYPTION_KEY with HKDF so that one configured secret serves every purpose.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import type { KeyKind } from '../services/types.js';

export const KEY_PREFIX: Record<KeyKind, string> = { publishable: 'pk_live_', secret: 'sk_live_' };

export function generateApiKey(kind: KeyKind): string {
  return KEY_PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function keyKindOf(key: string): KeyKind | undefined {
  if (key.startsWith(KEY_PREFIX.publishable)) return 'publishable';
  if (key.startsWith(KEY_PREFIX.secret)) return 'secret';
  return undefined;
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function deriveKey(master: Buffer, purpose: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), purpose, length));
}

/** Encrypts with AES-256-GCM; the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function decrypt(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined)
    throw new Error('Unknown encrypted value format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
