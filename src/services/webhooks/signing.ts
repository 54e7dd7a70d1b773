// Standard Webhooks signing: the secret is `whsec_<base64>` whose base64 part is the HMAC key; the
// signature header is `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export const generateSecret = () => SECRET_PREFIX + randomBytes(32).toString('base64');

export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt; the id stays the same across retries so receivers can dedupe. */
export function signedHeaders(secret: string, id: string, body: string, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'mongobaas-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  };
}
