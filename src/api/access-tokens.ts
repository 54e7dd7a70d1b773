// Personal access tokens on the dashboard API: create (shown once), list, revoke; all need a session.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import { requireDeveloper } from '../services/projects.js';
import type { AccessToken } from '../db/access-tokens.js';

type Ops = operations;

const iso = (date: Date | null) => date?.toISOString() ?? null;
const tokenView = ({ developerId: _developer, revokedByPasswordChange: _why, ...token }: AccessToken) => ({
  ...token,
  createdAt: token.createdAt.toISOString(),
  expiresAt: token.expiresAt.toISOString(),
  lastUsedAt: iso(token.lastUsedAt),
  revokedAt: iso(token.revokedAt),
});

export function accessTokenHandlers({ accessTokens }: Services) {
  const listAccessTokens: Handler<Ops['listAccessTokens']> = async (_input, ctx) => {
    const tokens = await accessTokens.list(requireDeveloper(ctx));
    return { status: 200, body: { success: true, data: { tokens: tokens.map(tokenView) }, message: '' } };
  };

  const createAccessToken: Handler<Ops['createAccessToken']> = async ({ body }, ctx) => {
    const { record, token } = await accessTokens.create(requireDeveloper(ctx), body);
    return {
      status: 201,
      body: {
        success: true,
        data: { token, accessToken: tokenView(record) },
        message: 'Access token created; copy it now, it is not shown again',
      },
    };
  };

  const revokeAccessToken: Handler<Ops['revokeAccessToken']> = async ({ params }, ctx) => {
    await accessTokens.revoke(requireDeveloper(ctx), params.tokenId);
    return { status: 200, body: { success: true, data: {}, message: 'Access token revoked' } };
  };

  return { listAccessTokens, createAccessToken, revokeAccessToken };
}
