import type { Context } from 'koa';

// A request header as one string: Node gives repeated headers as arrays; the first one counts.
export type HeaderBag = Record<string, string | string[] | undefined>;

export const firstHeader = (headers: HeaderBag, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Sets response headers through Node at once. Koa 3's `ctx.set` builds an array of entries and a
 * normalized pair per header on every call; the headers set on every answer (request id, Vary,
 * rate limits, a handler's headers) are plain strings and need none of it.
 */
export function setHeaders(ctx: Context, headers: Record<string, string>): void {
  if (ctx.headerSent) return;
  for (const name in headers) ctx.res.setHeader(name, headers[name]!);
}
