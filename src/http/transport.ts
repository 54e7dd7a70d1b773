// Whether a role is served over TLS, decided once from its external URL (PUBLIC_URL, DASHBOARD_URL)
// rather than from X-Forwarded-Proto alone: a TLS-terminating proxy without TRUST_PROXY still gets
// Secure cookies and HSTS. A request that arrived over TLS counts too.
import type { Context, Next } from 'koa';

/** A year, the value HSTS preload lists ask for; subdomains are left to the operator. */
export const HSTS = 'max-age=31536000';

export const servedOverTls = (url: string): boolean => url.startsWith('https:');

/** `Strict-Transport-Security` on every answer of a TLS deployment, or to a request that came over TLS. */
export function strictTransport(tlsDeployment: boolean) {
  return (ctx: Context, next: Next) => {
    if (tlsDeployment || ctx.secure) ctx.res.setHeader('Strict-Transport-Security', HSTS);
    return next();
  };
}
