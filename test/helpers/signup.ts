// Developer sign-up over HTTP as a person does it: the form, the mailed link (read from the SMTP
// sink), the password typed again. Fixtures that need no HTTP use createDeveloper instead.
import { expect } from 'chai';
import type { ApiClient } from './client.js';
import { linkTokenOf, mailbox } from './mail.js';

export const signupTokenOf = (message: { raw: string }) => linkTokenOf(message, '/signup/confirm');

/**
 * The confirmation token mailed to `email` after `start` runs. The sink is shared by every test
 * run on the machine, so each new mail's token is tried by `use` until one works.
 */
export async function confirmByMail<T>(
  email: string,
  start: () => Promise<unknown>,
  use: (token: string) => Promise<T | undefined>,
): Promise<T> {
  const inbox = mailbox(email);
  await inbox.skipExisting();
  await start();
  for (let i = 0; i < 10; i++) {
    const token = signupTokenOf(await inbox.next());
    const done = token ? await use(token) : undefined;
    if (done !== undefined) return done;
  }
  throw new Error(`no working confirmation link for ${email}`);
}

/** Signs up and confirms; the new developer's id and session cookie. */
export async function signUpByMail(client: ApiClient, email: string, password: string, name?: string) {
  return confirmByMail(
    email,
    async () => {
      const res = await client.post('/api/auth/signup', { email, password, ...(name ? { name } : {}) });
      expect(res.status, res.text).to.equal(201);
    },
    async (token) => {
      const res = await client.post('/api/auth/signup/confirm', { token, password });
      if (res.status === 404) return undefined; // another run's mail
      expect(res.status, res.text).to.equal(201);
      return {
        id: res.body.data.developer.id as string,
        developer: res.body.data.developer,
        cookie: res.headers.get('set-cookie')!.split(';')[0]!,
      };
    },
  );
}
