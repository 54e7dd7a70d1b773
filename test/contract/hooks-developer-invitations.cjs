// Dredd fixtures of the operator's developer invitations (/api/admin/developer-invitations) and
// the sign-up through one (/api/auth/signup/invitation): the operator's session, an invitation
// made for the revoke, and for the sign-up a token read from the mail the stack's SMTP sink kept.
const { readdir, readFile } = require('node:fs/promises');
const nodePath = require('node:path');

/** The token of the newest invitation link mailed to `email` at or after `since`, waiting up to 10 s. */
async function mailedInvitation(email, since) {
  const dir = process.env.SMTP_SINK_DIR;
  if (!dir) throw new Error('SMTP_SINK_DIR is not set: start the test stack');
  for (let i = 0; i < 200; i++) {
    const names = (await readdir(dir).catch(() => [])).filter(
      (n) => n.endsWith('.json') && !n.startsWith('.'),
    );
    for (const name of names.sort().reverse()) {
      const message = JSON.parse(await readFile(nodePath.join(dir, name), 'utf8'));
      if (!message.to.includes(email) || Date.parse(message.receivedAt) < since) continue;
      const match = /\/signup\?invitation=([\w-]+)/.exec(
        message.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
      );
      if (match) return match[1];
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no invitation mail for ${email} in ${dir}`);
}

module.exports = (hooks) => {
  const { state, call } = require('./fixtures.cjs');
  const INVITATION = '65f1c2a4b7e8d9001234567c';
  const name = (path, summary, status = 200) => `${path} > ${summary} > ${status} > application/json`;
  const address = (tag) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@contract.test`;
  const invite = (email) =>
    call(state.dashboardUrl, 'POST', '/api/admin/developer-invitations', {
      body: { email, plan: 'pro' },
      cookie: state.operator.cookie,
    });
  const asOperator = (transaction, done) => {
    transaction.request.headers.Cookie = state.operator.cookie;
    done();
  };

  hooks.before(
    name('/api/admin/developer-invitations', 'Pending developer invitations (operator only)'),
    asOperator,
  );
  hooks.before(
    name(
      '/api/admin/developer-invitations',
      'Invite someone to create a developer account (operator only)',
      202,
    ),
    (transaction, done) => {
      transaction.request.body = JSON.stringify({ email: address('invited'), plan: 'pro' });
      asOperator(transaction, done);
    },
  );
  hooks.before(
    name(
      '/api/admin/developer-invitations/{invitationId}',
      'Revoke a pending developer invitation (operator only)',
    ),
    (transaction, done) => {
      invite(address('revoked')).then(({ json }) => {
        const id = json.data.invitation.id;
        transaction.fullPath = transaction.fullPath.replace(INVITATION, id);
        transaction.request.uri = transaction.request.uri.replace(INVITATION, id);
        asOperator(transaction, done);
      }, done);
    },
  );
  hooks.before(
    name('/api/auth/signup/invitation', 'Create an invited developer account and log in', 201),
    (transaction, done) => {
      const email = address('signup');
      const since = Date.now() - 1000;
      invite(email)
        .then(() => mailedInvitation(email, since))
        .then((token) => {
          transaction.request.body = JSON.stringify({ token, password: state.password });
          done();
        }, done);
    },
  );
};
