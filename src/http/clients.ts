// Serves the clients this installation was built with (scripts/build-clients.sh, into
// dist/clients) at /clients/ on the dashboard role: the SDK and the CLI as npm tarballs, the SDK as
// one ES module, the definition file's JSON schema, and index.json naming them. Read once at
// start. Any origin may load them (a module script from another site is a CORS request).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';

const TYPES: Record<string, string> = {
  '.tgz': 'application/gzip',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

export function clientFiles(dir: string) {
  const files = new Map<string, { type: string; body: Buffer }>();
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) {
      const type = TYPES[path.extname(name)];
      if (type) files.set(`/clients/${name}`, { type, body: readFileSync(path.join(dir, name)) });
    }
  }
  return async (ctx: Context, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || !ctx.path.startsWith('/clients/')) return next();
    ctx.set({
      'Access-Control-Allow-Origin': '*',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    const file = files.get(ctx.path === '/clients/' ? '/clients/index.json' : ctx.path);
    if (!file) {
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = files.size
        ? 'No such client file: /clients/index.json lists them.\n'
        : 'The clients are not built: run `bash scripts/build-clients.sh` (npm start does it), then restart.\n';
      return;
    }
    ctx.type = file.type;
    ctx.body = file.body;
  };
}
