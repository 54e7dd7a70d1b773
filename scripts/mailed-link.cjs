// Reads a dashboard link's token (`/signup/confirm`, `/invitations/accept`) out of the mails
// written to a folder: the test stack's SMTP sink or the outbox of a service without SMTP (both
// one JSON file per message with `to` and `raw`). For scripts and the contract run, which sign
// up developers over HTTP as a person would.
const { readdir, readFile } = require('node:fs/promises');
const nodePath = require('node:path');

/** The token of the newest link to `page` mailed to `email` at or after `since` (ms), waiting up to 10 s. */
async function mailedToken(dir, email, page, since = 0) {
  const pattern = new RegExp(`${page.replace(/\//g, '\\/')}\\?token=([\\w-]+)`);
  for (let i = 0; i < 200; i++) {
    const names = (await readdir(dir).catch(() => [])).filter(
      (n) => n.endsWith('.json') && !n.startsWith('.'),
    );
    for (const name of names.sort().reverse()) {
      const message = JSON.parse(await readFile(nodePath.join(dir, name), 'utf8'));
      const at = Date.parse(message.receivedAt ?? message.createdAt);
      if (!message.to.includes(email.toLowerCase()) || at < since) continue;
      const match = pattern.exec(message.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
      if (match) return match[1];
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail with a ${page} link for ${email} in ${dir}`);
}

/**
 * Signs a developer up over HTTP and confirms the address with the mailed link; resolves to the
 * confirm answer's { json, cookie }. `post(path, body)` sends to the dashboard API.
 */
async function signUpConfirmed(post, dir, email, password) {
  const since = Date.now() - 1000;
  await post('/api/auth/signup', { email, password });
  const token = await mailedToken(dir, email, '/signup/confirm', since);
  return post('/api/auth/signup/confirm', { token, password });
}

module.exports = { mailedToken, signUpConfirmed };
