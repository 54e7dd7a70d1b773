// Shared setup of the mail suites: both roles on one platform database, the operator (the first
// account) who sets plans and limits over the dashboard API, and an SMTP server of a project's
// own, started on loopback by the test (smtp-server, with a login and a recipient it refuses).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createDeveloper, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

export type Apps = Awaited<ReturnType<typeof startTestApps>>;

export async function startMailSuite(name: string, overrides: Record<string, string> = {}) {
  const apps = await startTestApps(name, overrides);
  const operator = await createDeveloper(apps.dashboard.services);
  const operatorClient = apps.dashboard.client.with({ cookie: operator.cookie });
  async function setPlan(fx: ProjectFixture, plan: 'free' | 'pro') {
    const res = await operatorClient.put(`/api/admin/developers/${fx.developer.id}/plan`, { plan });
    expect(res.status).to.equal(200);
  }
  async function setLimits(fx: ProjectFixture, limits: Record<string, number>) {
    const res = await operatorClient.put(`/api/admin/projects/${fx.project.id}/limits`, { limits });
    expect(res.status).to.equal(200);
  }
  async function project(plan: 'free' | 'pro' = 'free') {
    const fx = await createProjectFixture(apps.dashboard.services);
    if (plan === 'pro') await setPlan(fx, plan);
    return {
      fx,
      secret: apps.public.client.with({ 'x-api-key': fx.secretKey }),
      publishable: apps.public.client.with({ 'x-api-key': fx.publishableKey }),
      dash: apps.dashboard.client.with({ cookie: fx.cookie }),
    };
  }
  return { apps, setPlan, setLimits, project };
}

export type MailProject = Awaited<ReturnType<Awaited<ReturnType<typeof startMailSuite>>['project']>>;
export type { ApiClient };

export interface OwnSmtp {
  port: number;
  user: string;
  pass: string;
  messages: { to: string[]; raw: string }[];
  close(): Promise<void>;
}

/** An SMTP server with a login; recipients starting with `reject` are refused (550). */
export async function startOwnSmtp(): Promise<OwnSmtp> {
  const user = 'project-mailer';
  const pass = 'smtp-pass-' + Math.random().toString(36).slice(2);
  const messages: OwnSmtp['messages'] = [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) return callback(null, { user });
      callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('reject')) {
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    user,
    pass,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const uniqueAddress = (tag: string) =>
  `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.test`;
