// Serves the role's bundled spec at /openapi.json and a reference page at /docs, rendered by
// swagger-ui-dist from node_modules (no CDN). The assets are read once at start; only the listed
// files are served, so nothing else of the package is reachable.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import type { Context } from 'koa';

const require = createRequire(import.meta.url);
const uiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
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
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
`;

export function docsRouter(spec: Record<string, unknown>, baseUrl: string): Router {
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
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE(title);
  });
  router.get('/docs/init.js', (ctx: Context) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/:asset', (ctx: Context, next) => {
    const asset = assets.get(ctx.params.asset ?? '');
    if (!asset) return next();
    ctx.type = asset.type;
    ctx.set('cache-control', 'public, max-age=3600');
    ctx.body = asset.body;
  });
  return router;
}
