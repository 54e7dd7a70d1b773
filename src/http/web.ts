// Serves the web dashboard (built by Vite from web/ into dist/web) on the dashboard role: every
// GET outside /api, /docs and /openapi.json. Files are read once at start. Hashed assets are
// cached for a year; index.html, which names them, is revalidated on every visit. Any page path
// the app knows (/projects/...) gets index.html, so links and reloads work.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  // The published declarations for hosted functions (/types/functions.d.ts), readable in a tab.
  '.ts': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Paths that belong to the API, its reference page and its spec: never answered with the app. */
const NOT_APP = /^\/(api(\/|$)|docs(\/|$)|openapi\.json$)/;

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

interface Asset {
  type: string;
  body: Buffer;
  cache: string;
}

const origin = (url: string | undefined) => {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * The page may run only its own scripts and styles. It talks to the dashboard API (same origin)
 * and PUTs uploads to a presigned URL: the public API (filesystem store) or the operator's bucket,
 * and the projects' own buckets the operator names (DASHBOARD_CONTENT_ORIGINS). Files are shown
 * from the same places. No scheme-wide source such as `https:`: an injected image or fetch could
 * otherwise carry what the page shows to any host.
 */
export function contentSecurityPolicy(uploadOrigins: (string | undefined)[]): string {
  const sources = [...new Set(uploadOrigins.map(origin).filter((o): o is string => !!o))].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: ${sources}`.trim(),
    `connect-src 'self' ${sources}`.trim(),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const full = path.join(folder, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const url = '/' + path.relative(dir, full).split(path.sep).join('/');
        assets.set(url, {
          type: TYPES[path.extname(name)] ?? 'application/octet-stream',
          body: readFileSync(full),
          cache: url.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
        });
      }
    }
  };
  walk(dir);
  return assets;
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><h1>The web dashboard is not built</h1><p>Run <code>npm run build:web</code> (npm start does it),
then reload. The dashboard API works without it: see <a href="/docs">/docs</a>.</p></body></html>`;

export function webApp(dir: string, uploadOrigins: (string | undefined)[]) {
  const assets = existsSync(path.join(dir, 'index.html')) ? readAssets(dir) : undefined;
  const index = assets?.get('/index.html');
  const csp = contentSecurityPolicy(uploadOrigins);
  return async (ctx: Context, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || NOT_APP.test(ctx.path)) return next();
    ctx.set({
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
      'X-Frame-Options': 'DENY',
    });
    if (!index) {
      ctx.status = 503;
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = NOT_BUILT;
      return;
    }
    const asset = assets!.get(ctx.path);
    // A missing hashed asset is a real 404 (an old page asking for a file of an earlier build);
    // anything else is a page of the app.
    if (!asset && ctx.path.startsWith('/assets/')) return next();
    const served = asset ?? index;
    ctx.type = served.type;
    ctx.set('Cache-Control', served.cache);
    ctx.body = served.body;
  };
}
