// The API's routes split by their first two path segments, so that a request is matched against
// the few routes of its group (`/api/data`: a dozen) instead of every route of the role: @koa/router
// tests each route's expression in turn, and with the whole table that was about 8 µs of CPU per
// request, the largest part of what the router costs (bench/PROFILE.md).
import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';

/** A template's segment that is a parameter (`{id}`) is `*` in its group's key. */
const WILD = '*';

function keyOf(template: string): string {
  const [, first = '', second = ''] = template.split('/', 3);
  return `/${first}/${second.startsWith('{') ? WILD : second}`;
}

export class RouteGroups {
  private readonly routers = new Map<string, Router>();

  /** The router of a template's group, made on first use. */
  of(template: string): Router {
    const key = keyOf(template);
    let router = this.routers.get(key);
    if (!router) this.routers.set(key, (router = new Router()));
    return router;
  }

  /**
   * The dispatcher: the group named by the request's first two segments, then the group whose
   * second segment is a parameter (a route passes on to it when a more literal one owns the path,
   * route-owner.ts), then whatever follows in the chain. A path of no group goes straight on.
   */
  routes(): Middleware {
    // @koa/router types its middleware for contexts that already carry `params`; it sets them itself.
    const middleware = new Map(
      [...this.routers].map(([key, router]) => [key, router.routes() as unknown as Middleware]),
    );
    return (ctx: Context, next: Next) => {
      const path = ctx.path;
      const first = path.indexOf('/', 1);
      if (first < 0) return next();
      const end = path.indexOf('/', first + 1);
      const literal = middleware.get(end < 0 ? path : path.slice(0, end));
      const wild = middleware.get(`${path.slice(0, first)}/${WILD}`);
      if (literal && wild) return literal(ctx, () => wild(ctx, next));
      return (literal ?? wild)?.(ctx, next) ?? next();
    };
  }
}
