// A project's own SMTP server (Pro, "own mail key"). Saved only after the host passed the
// restricted-host check and a real connection with the credentials succeeded (nodemailer verify);
// the password is stored encrypted and never returned. Every connection goes to an address
// resolved and checked just before, so a DNS change cannot point it at the internal network.
import { lookup } from 'node:dns/promises';
import type { Config } from '../../config.js';
import { ApiError, badRequest, forbidden } from '../../http/errors.js';
import { checkHost } from '../../lib/restricted-hosts.js';
import { decrypt, deriveKey, encrypt } from '../../lib/secrets.js';
import { projectSmtpMailer, verifySmtp, type Mailer, type SmtpServerSettings } from '../../mail/sender.js';
import type { MailSettingsRepo, StoredSmtp } from '../../db/mail-settings.js';
import type { PlanLimits, Project } from '../types.js';

export const OWN_SMTP_MESSAGE = 'Bring Your Own Mail (SMTP) is a Pro feature. Please upgrade to continue.';
export const RESTRICTED_SMTP_MESSAGE =
  'SMTP host is pointing to a restricted host, internal network, or unsupported address.';

export interface SmtpInput {
  host: string;
  port: number;
  secure?: boolean;
  username: string;
  password: string;
  from: string;
}

export const smtpView = (smtp: StoredSmtp | null) =>
  smtp && {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    username: smtp.username,
    from: smtp.from,
    hasPassword: true as const,
    verifiedAt: smtp.verifiedAt.toISOString(),
  };

export function mailSmtpService(config: Config, repo: MailSettingsRepo, platformMailer: Mailer) {
  const sealingKey = deriveKey(config.encryptionKey, 'mail-smtp-password');

  /** The address to connect to, after the restricted-host check (narrower with ALLOW_PRIVATE_HOSTS). */
  async function pinnedAddress(
    host: string,
  ): Promise<{ ok: true; address: string } | { ok: false; reason: string }> {
    let resolved: { address: string }[] = [];
    const check = await checkHost(
      host,
      config.allowPrivateHosts,
      async (name) => (resolved = await lookup(name, { all: true, verbatim: true })),
    );
    if (!check.ok) return check;
    return { ok: true, address: resolved[0]?.address ?? host.replace(/^\[|\]$/g, '') };
  }

  async function serverSettings(smtp: Omit<StoredSmtp, 'passwordEnc' | 'verifiedAt'>, password: string) {
    const pinned = await pinnedAddress(smtp.host);
    if (!pinned.ok) return pinned;
    const settings: SmtpServerSettings = {
      host: pinned.address,
      servername: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      username: smtp.username,
      password,
      from: smtp.from,
    };
    return { ok: true as const, settings };
  }

  return {
    get: (project: Project) => repo.getSmtp(project.id).then(smtpView),

    async set(project: Project, limits: PlanLimits, input: SmtpInput) {
      if (!limits.ownMailKey) throw forbidden(OWN_SMTP_MESSAGE, 'PRO_FEATURE');
      const smtp = {
        host: input.host.trim().toLowerCase(),
        port: input.port,
        secure: input.secure ?? input.port === 465,
        username: input.username,
        from: input.from,
      };
      const server = await serverSettings(smtp, input.password);
      if (!server.ok) {
        throw badRequest(
          RESTRICTED_SMTP_MESSAGE,
          [{ path: 'body.host', message: server.reason }],
          'RESTRICTED_HOST',
        );
      }
      try {
        await verifySmtp(server.settings);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw badRequest(`Could not connect to the SMTP server: ${reason}`, undefined, 'SMTP_CHECK_FAILED');
      }
      const stored: StoredSmtp = {
        ...smtp,
        passwordEnc: encrypt(sealingKey, input.password),
        verifiedAt: new Date(),
      };
      await repo.setSmtp(project.id, stored);
      return smtpView(stored);
    },

    remove: (project: Project) => repo.setSmtp(project.id, null),

    /** Where a project's mail goes: its own server while its plan allows it, else the platform's. */
    async mailerFor(project: Project, limits: PlanLimits): Promise<{ mailer: Mailer; own: boolean }> {
      const smtp = limits.ownMailKey ? await repo.getSmtp(project.id) : null;
      if (!smtp) return { mailer: platformMailer, own: false };
      const server = await serverSettings(smtp, decrypt(sealingKey, smtp.passwordEnc));
      if (!server.ok) {
        throw new ApiError(502, 'MAIL_SEND_FAILED', `${RESTRICTED_SMTP_MESSAGE} (${server.reason})`);
      }
      return { mailer: projectSmtpMailer(server.settings), own: true };
    },
  };
}

export type MailSmtpService = ReturnType<typeof mailSmtpService>;
