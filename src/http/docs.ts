// Serves the role's bundled spec at /openapi.json and a reference page at /docs, rendered by
// swagger-ui-dist from node_modules (no CDN). The assets are read once at start; only the listed
// files are served, so nothing else of the package is reachable. The pages get the dashboard's
// protections: a Content-Security-Policy allowing only these files, and no framing.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import type { Context } from 'koa';
import { setHeaders } from './headers.js';

const require = createRequire(import.meta.url);
const uiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
};

const PAGE = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// BaseLayout: the standalone layout's top bar (a box to load any other spec, and a logo drawn
// with an inline <style> that the CSP refuses) is of no use on a page about one API.
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout' });
`;

const origin = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
};

/**
 * The page runs only the files above; "Try it out" calls the documented server (the role's
 * external URL, which behind a proxy may differ from the page's own origin). Swagger UI sets its
 * styles through the DOM (allowed) and shows images inline as data: URLs.
 */
export function docsContentSecurityPolicy(baseUrl: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${origin(baseUrl)}`.trim(),
    "font-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function docsRouter(spec: Record<string, unknown>, baseUrl: string): Router {
  const pageHeaders = {
    'Content-Security-Policy': docsContentSecurityPolicy(baseUrl),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
  };
  const published = JSON.stringify({ ...spec, servers: [{ url: baseUrl }] });
  const title = String((spec.info as { title?: string } | undefined)?.title ?? 'API');
  const assets = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(path.join(uiDir, name)) },
    ]),
  );
  const router = new Router();
  router.get('/openapi.json', (ctx: Context) => {
    ctx.type = 'application/json';
    ctx.body = published;
  });
  router.get('/docs', (ctx: Context) => {
    setHeaders(ctx, pageHeaders);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE(title);
  });
  router.get('/docs/init.js', (ctx: Context) => {
    setHeaders(ctx, pageHeaders);
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/:asset', (ctx: Context, next) => {
    const asset = assets.get(ctx.params.asset ?? '');
    if (!asset) return next();
    setHeaders(ctx, pageHeaders);
    ctx.type = asset.type;
    ctx.set('cache-control', 'public, max-age=3600');
    ctx.body = asset.body;
  });
  return router;
}
