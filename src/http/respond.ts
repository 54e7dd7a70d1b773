// The one writer of handler results onto the Koa context.
import type { Context } from 'koa';
import type { CookieToSet } from './types.js';
import { setHeaders } from './headers.js';

export function respond(
  ctx: Context,
  result: { status: number; body: unknown; headers?: Record<string, string>; cookies?: CookieToSet[] },
): void {
  ctx.status = result.status;
  if (result.headers) setHeaders(ctx, result.headers);
  for (const cookie of result.cookies ?? []) {
    ctx.cookies.set(cookie.name, cookie.value, {
      httpOnly: true,
      sameSite: 'lax',
      secure: ctx.secure,
      path: cookie.path ?? '/',
      maxAge: cookie.value === null ? 0 : cookie.maxAgeMs,
      overwrite: true,
    });
  }
  if (result.body !== undefined) ctx.body = result.body;
}
