// The one writer of handler results onto the Koa context.
import type { Context } from 'koa';
import type { CookieToSet } from './types.js';
import { setHeaders } from './headers.js';
import type { CookiePolicy } from './cookies.js';

export function respond(
  ctx: Context,
  result: { status: number; body: unknown; headers?: Record<string, string>; cookies?: CookieToSet[] },
  cookies: CookiePolicy,
): void {
  ctx.status = result.status;
  if (result.headers) setHeaders(ctx, result.headers);
  for (const cookie of result.cookies ?? []) cookies.set(ctx, cookie);
  if (result.body !== undefined) ctx.body = result.body;
}
