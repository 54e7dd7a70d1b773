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

/** A value sealed by a keyring: the id of the key that sealed it travels with it. */
export interface SealedValue {
  keyId: string;
  sealed: string;
}

/**
 * Encryption with key ids, so that ENCRYPTION_KEY can be rotated: values are sealed with the key
 * derived from the current master key, and opened with whichever configured master key (current
 * or previous) has the id they were sealed with. The id is a hash of the derived key, so it says
 * nothing about the key itself.
 */
export function keyring(masters: readonly Buffer[], purpose: string) {
  const keys = masters.map((master) => {
    const key = deriveKey(master, purpose);
    return { id: createHash('sha256').update(key).digest('base64url').slice(0, 12), key };
  });
  const current = keys[0];
  if (!current) throw new Error('keyring needs at least one key');
  return {
    currentKeyId: current.id,
    seal: (plaintext: string): SealedValue => ({
      keyId: current.id,
      sealed: encrypt(current.key, plaintext),
    }),
    /** Throws when no configured key has the value's id (a key removed too early). */
    open({ keyId, sealed }: SealedValue): string {
      const entry = keys.find((k) => k.id === keyId);
      if (!entry) throw new Error(`No configured encryption key has id ${keyId}`);
      return decrypt(entry.key, sealed);
    },
  };
}

export type Keyring = ReturnType<typeof keyring>;
