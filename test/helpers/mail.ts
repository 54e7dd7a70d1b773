// Reads what the app really sent: the SMTP sink of the test stack (SMTP_SINK_DIR, one JSON file
// per message: { id, receivedAt, from, to[], raw }) or an outbox folder (SMTP_URL unset).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { testEnv } from './env.js';

export interface SinkMessage {
  id: string;
  receivedAt: string;
  from: string;
  to: string[];
  raw: string;
}

export const sinkDir = () => {
  const dir = testEnv.SMTP_SINK_DIR;
  if (!dir) throw new Error('SMTP_SINK_DIR is not set: start the test stack');
  return dir;
};

async function readMessages<T extends { to: string[] }>(dir: string): Promise<T[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (n) => n.endsWith('.json') && !n.startsWith('.'),
  );
  names.sort();
  const out: T[] = [];
  for (const name of names) out.push(JSON.parse(await readFile(path.join(dir, name), 'utf8')) as T);
  return out;
}

/**
 * The messages of one address, in arrival order; `next()` waits for one not returned before.
 * Addresses are unique per test, so the shared sink folder needs no cleaning.
 */
export function mailbox<T extends { to: string[]; id: string } = SinkMessage>(
  address: string,
  dir = sinkDir(),
) {
  const seen = new Set<string>();
  const mine = async () => (await readMessages<T>(dir)).filter((m) => m.to.includes(address.toLowerCase()));
  return {
    async next(timeoutMs = 5000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const fresh = (await mine()).find((m) => !seen.has(m.id));
        if (fresh) {
          seen.add(fresh.id);
          return fresh;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no new mail for ${address} within ${timeoutMs} ms`);
    },
    /** All messages so far (for "nothing was sent" checks after a short wait). */
    all: mine,
    /** Marks the messages already there as seen: `next()` then waits for a newer one. */
    async skipExisting(): Promise<void> {
      for (const m of await mine()) seen.add(m.id);
    },
  };
}

/** The 6-digit code of a code mail (raw SMTP text or outbox record). */
export function codeOf(message: { raw: string }): string {
  const match = /code is (\d{6})/.exec(message.raw);
  if (!match) throw new Error(`no code in message:\n${message.raw}`);
  return match[1]!;
}

export const subjectOf = (message: { raw: string }) => /^Subject: (.*)$/m.exec(message.raw)?.[1] ?? '';

/** The token of a dashboard link (`/invitations/accept`, `/signup/confirm`) in a mail, decoded. */
export function linkTokenOf(message: { raw: string }, page: string): string | undefined {
  const text = message.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return new RegExp(`${page.replace(/\//g, '\\/')}\\?token=([\\w-]+)`).exec(text)?.[1];
}

/** The token of the invitation link in an invitation mail. */
export function invitationTokenOf(message: { raw: string }): string {
  const token = linkTokenOf(message, '/invitations/accept');
  if (!token) throw new Error(`no invitation link in message:\n${message.raw}`);
  return token;
}
