// The one mail sender of the service: nodemailer over SMTP_URL, or, when no SMTP server is set,
// one file per message in the outbox folder (DECISIONS §1). End-user auth codes use it; the public
// mail API reuses it.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface MailMessage {
  to: string | string[];
  subject: string;
  text?: string;
  html?: string;
  /** Defaults to MAIL_FROM. */
  from?: string;
  replyTo?: string;
}

export interface SentMail {
  messageId: string;
  /** Where it went: `smtp`, or the outbox file. */
  via: 'smtp' | 'outbox';
  file?: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  sendMail(message: MailMessage): Promise<SentMail>;
}

type MailSettings = Pick<Config, 'smtpUrl' | 'mailFrom' | 'mailOutboxDir'>;

export function createMailer(config: MailSettings): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom) : outboxMailer(config);
}

/** A project's own SMTP server (Pro): `host` is the address to connect to, already checked. */
export interface SmtpServerSettings {
  host: string;
  /** The server's name, for TLS certificate checks when `host` is a resolved address. */
  servername: string;
  port: number;
  secure: boolean;
  username: string;
  password: string;
  from: string;
}

const SMTP_TIMEOUTS = { connectionTimeout: 8000, greetingTimeout: 8000, socketTimeout: 15000 };

function smtpTransport(settings: SmtpServerSettings) {
  return nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: { user: settings.username, pass: settings.password },
    tls: { servername: settings.servername },
    ...SMTP_TIMEOUTS,
  });
}

export function projectSmtpMailer(settings: SmtpServerSettings): Mailer {
  const transport = smtpTransport(settings);
  return {
    kind: 'smtp',
    async sendMail(message) {
      const info = await transport.sendMail({ ...message, from: message.from ?? settings.from });
      return { messageId: String(info.messageId), via: 'smtp' };
    },
  };
}

/** Connects and authenticates (nodemailer `verify`); throws with the server's reason. */
export async function verifySmtp(settings: SmtpServerSettings): Promise<void> {
  const transport = smtpTransport(settings);
  try {
    await transport.verify();
  } finally {
    transport.close();
  }
}

function smtpMailer(smtpUrl: string, defaultFrom: string): Mailer {
  // One connection per message: auth mail is rare next to hashing, and nothing stays open that
  // would have to be closed at shutdown.
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    kind: 'smtp',
    async sendMail(message) {
      const info = await transport.sendMail({ ...message, from: message.from ?? defaultFrom });
      return { messageId: String(info.messageId), via: 'smtp' };
    },
  };
}

/**
 * Renders the message exactly as SMTP would carry it (nodemailer's stream transport) and writes
 * `{ id, createdAt, from, to, subject, text, html, raw }` as `<id>.json`, under a temporary name
 * first so that a reader never sees half a file.
 */
function outboxMailer(config: MailSettings): Mailer {
  const render = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const dir = path.resolve(config.mailOutboxDir);
  let ready: Promise<unknown> | undefined;
  let sequence = 0;
  return {
    kind: 'outbox',
    async sendMail(message) {
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      const from = message.from ?? config.mailFrom;
      const info = await render.sendMail({ ...message, from });
      sequence = (sequence + 1) % 1_000_000;
      const id = `${Date.now()}-${String(sequence).padStart(6, '0')}-${randomBytes(4).toString('hex')}`;
      const record = {
        id,
        createdAt: new Date().toISOString(),
        messageId: info.messageId,
        from,
        to: Array.isArray(message.to) ? message.to : [message.to],
        subject: message.subject,
        text: message.text ?? null,
        html: message.html ?? null,
        raw: (info.message as Buffer).toString('utf8'),
      };
      const file = path.join(dir, `${id}.json`);
      const temp = path.join(dir, `.${id}.json.tmp`);
      await writeFile(temp, JSON.stringify(record, null, 2) + '\n');
      await rename(temp, file);
      return { messageId: String(info.messageId), via: 'outbox', file };
    },
  };
}
