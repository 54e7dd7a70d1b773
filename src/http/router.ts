// Routing from the spec: one @koa/router route per operation, built once at start, dispatched to
// the handler named by the operationId. openapi-backend only validates (it is slow as a router),
// with its compiled validators over what Koa has parsed (request-input.ts).
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import addFormats from 'ajv-formats';
import type { Logger } from '../lib/logger.js';
import type { Principal, RequestContext } from '../services/context.js';
import { unauthorized } from './errors.js';
import { toValidationError } from './validation.js';
import { requestValidator } from './request-input.js';
import { respond } from './respond.js';
import { cookiePolicy, type CookiePolicy } from './cookies.js';
import { shadowingTemplates } from './route-owner.js';
import { RouteGroups } from './route-groups.js';
import type { RequestState } from './middleware.js';
import type { AnyHandler, SecurityInput, SecurityResolver } from './types.js';
import type { SecurityGate } from './rate-limit.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type SecurityRequirement = Record<string, string[]>;
interface OperationEntry {
  operationId: string;
  method: (typeof METHODS)[number];
  path: string;
  security: SecurityRequirement[];
  /** `x-during-restore: true`: answered while a restore replaces the project's data (its backups). */
  duringRestore: boolean;
}

export function listOperations(spec: Document): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = (
        item as Record<
          string,
          { operationId?: string; security?: SecurityRequirement[]; 'x-during-restore'?: boolean }
        >
      )[method];
      if (!op) continue;
      if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      entries.push({
        operationId: op.operationId,
        method,
        path,
        security: op.security ?? (spec.security as SecurityRequirement[] | undefined) ?? [],
        duringRestore: op['x-during-restore'] === true,
      });
    }
  }
  return entries;
}

/** Operations without a handler and handlers without an operation; both must be empty. */
export function handlerParity(spec: Document, handlers: Record<string, unknown>) {
  const operations = new Set(listOperations(spec).map((op) => op.operationId));
  return {
    missingHandlers: [...operations].filter((id) => !(id in handlers)),
    unknownHandlers: Object.keys(handlers).filter((id) => !operations.has(id)),
  };
}

export function createValidator(spec: Document): OpenAPIBackend {
  const api = new OpenAPIBackend({
    definition: spec,
    quick: true,
    coerceTypes: true,
    // Errors carry the schema that failed, for the rules that word their own problem (validation.ts).
    ajvOpts: { verbose: true },
    customizeAjv: (ajv) => {
      addFormats.default(ajv);
      return ajv;
    },
  });
  api.init();
  return api;
}

export interface RouterOptions {
  spec: Document;
  handlers: Record<string, AnyHandler>;
  security: Record<string, SecurityResolver>;
  log: Logger;
  /** Wraps the credential resolution of an operation (rate limits); chosen once per operation. */
  gate?: (security: SecurityRequirement[]) => SecurityGate | undefined;
  /** Cookie names and attributes (prefixes and Secure on a TLS deployment); plain by default. */
  cookies?: CookiePolicy;
}

/**
 * The API's routes: `router` holds every route, for what asks which routes own a path (the CORS
 * preflight, the 405 fallback); `routes` dispatches a request, through the routes of its first two
 * path segments only (route-groups.ts).
 */
export interface ApiRouter {
  router: Router;
  routes: Middleware;
}

export function buildRouter({
  spec,
  handlers,
  security,
  log,
  gate,
  cookies: cookiePolicyOfRole = cookiePolicy(false),
}: RouterOptions): ApiRouter {
  const { missingHandlers, unknownHandlers } = handlerParity(spec, handlers);
  if (missingHandlers.length || unknownHandlers.length) {
    throw new Error(
      `Handlers and operations differ: without handler [${missingHandlers.join(', ')}], ` +
        `without operation [${unknownHandlers.join(', ')}]`,
    );
  }
  const api = createValidator(spec);
  const router = new Router();
  const groups = new RouteGroups();
  const entries = listOperations(spec);
  const templates = [...new Set(entries.map((entry) => entry.path))];
  for (const entry of entries) {
    const handler = handlers[entry.operationId]!;
    const validate = requestValidator(api, api.getOperation(entry.operationId)!);
    const koaPath = entry.path.replace(/\{([^}]+)\}/g, ':$1');
    const guard = gate?.(entry.security);
    const tokenInQuery = entry.security.some((requirement) => QUERY_TOKEN_SCHEME in requirement);
    const plan = securityPlan(entry.security, security, entry.operationId);
    // A path that a more literal template also matches is that template's (405 if it lacks the method).
    const shadows = shadowingTemplates(entry.path, templates);
    const route = async (ctx: Context, next: () => Promise<unknown>) => {
      if (shadows.length > 0 && shadows.some((shadow) => shadow.test(ctx.path))) return next();
      const cookies = new RequestCookies(ctx, cookiePolicyOfRole);
      const input: SecurityInput = {
        method: ctx.method,
        headers: ctx.headers,
        queryKey: takeQueryParam(ctx, 'key'),
        queryToken: tokenInQuery ? takeQueryParam(ctx, 'access_token') : undefined,
        cookies,
        ip: ctx.ip,
        duringRestore: entry.duringRestore,
      };
      // Kept on the request's state as soon as it is known, for the request log: a request the
      // rate limit then refuses is logged under its project too.
      const state = ctx.state as RequestState;
      const resolve = async () => {
        try {
          return (state.principal = await resolveSecurity(plan, input));
        } finally {
          state.keyProject = input.keyProject;
        }
      };
      const principal = await (guard ? guard(ctx, resolve) : resolve());
      const validation = validate(ctx, ctx.query);
      if (validation.errors) throw toValidationError(validation.errors);
      // Set by requestContext (middleware.ts), which is first in the chain of both roles.
      const context = new RoutedContext(ctx.state as Partial<RequestState>, log, ctx.ip, principal, {
        method: ctx.method,
        path: ctx.path,
      });
      const result = await handler(
        {
          params: validation.params as never,
          query: validation.query as never,
          body: ctx.request.body as never,
          headers: ctx.headers,
          cookies,
          rawBody: ctx.req,
        },
        context,
      );
      respond(ctx, result, cookiePolicyOfRole);
    };
    router[entry.method](koaPath, route);
    groups.of(entry.path)[entry.method](koaPath, route);
  }
  return { router, routes: groups.routes() };
}

// What a route builds per request holds no getters of its own: an accessor in an object literal
// costs a new accessor pair per request, which V8 allocates in the old generation. From there it
// keeps its closure, and through it the whole request (Koa context, socket, parser, headers),
// alive through every young collection until the next full one: each request's objects were
// promoted to the old generation, about 5 KB of them, and collected there seconds later. Lazy
// reads are getters of classes instead, defined once on their prototype (RequestState likewise).

/** A request's cookies: Koa builds its cookie jar on first use, so only requests that read one pay for it. */
class RequestCookies {
  constructor(
    private readonly ctx: Context,
    private readonly policy: CookiePolicy,
  ) {}

  get(name: string): string | undefined {
    return this.ctx.cookies.get(this.policy.wire(name));
  }
}

/** The RequestContext of a routed request: its logger is built only for requests that log. */
class RoutedContext implements RequestContext {
  readonly requestId: string;
  constructor(
    private readonly state: Partial<RequestState>,
    private readonly fallback: Logger,
    readonly ip: string,
    readonly principal: Principal,
    readonly request: { readonly method: string; readonly path: string },
  ) {
    this.requestId = state.requestId ?? '';
  }

  get log(): Logger {
    return this.state.log ?? this.fallback;
  }
}

/** The security scheme of an access token in the query (realtime streams: EventSource sends no headers). */
const QUERY_TOKEN_SCHEME = 'accessTokenQuery';

/**
 * Removes a credential (`key`, `access_token`) from the query before anything else reads it (it
 * must not reach filters, logs of the query or handlers) and returns it for the resolvers.
 */
function takeQueryParam(ctx: Context, name: string): string | undefined {
  const query = ctx.query;
  if (query[name] === undefined) return undefined;
  const { [name]: value, ...rest } = query;
  ctx.query = rest;
  return Array.isArray(value) ? value[0] : value;
}

/**
 * An operation's security requirements worked out at start: the resolvers of the schemes it names,
 * each once, and every requirement as the positions of its schemes among them.
 */
interface SecurityPlan {
  resolvers: SecurityResolver[];
  requirements: number[][];
}

function securityPlan(
  requirements: SecurityRequirement[],
  resolvers: Record<string, SecurityResolver>,
  operationId: string,
): SecurityPlan {
  const schemes: string[] = [];
  const positions = requirements.map((requirement) =>
    Object.keys(requirement).map((scheme) => {
      if (!resolvers[scheme]) throw new Error(`No resolver for security scheme ${scheme} (${operationId})`);
      if (!schemes.includes(scheme)) schemes.push(scheme);
      return schemes.indexOf(scheme);
    }),
  );
  return { resolvers: schemes.map((scheme) => resolvers[scheme]!), requirements: positions };
}

/** A scheme whose resolver found no credential of its kind. */
const ABSENT = null;

/**
 * OpenAPI semantics: the requirements are alternatives, the schemes inside one requirement must
 * all be present. Each scheme is resolved at most once per request, in the order first named. A
 * resolver that finds an invalid credential throws at once (401/403).
 */
async function resolveSecurity(plan: SecurityPlan, input: SecurityInput): Promise<Principal> {
  if (plan.requirements.length === 0) return {};
  const facets: (Principal | typeof ABSENT | undefined)[] = new Array(plan.resolvers.length);
  for (const requirement of plan.requirements) {
    let principal: Principal | undefined = {};
    for (const position of requirement) {
      let facet = facets[position];
      if (facet === undefined)
        facet = facets[position] = (await plan.resolvers[position]!(input, principal)) ?? ABSENT;
      if (facet === ABSENT) {
        principal = undefined;
        break;
      }
      // A facet is a fresh object of its resolver: the first is the principal as it is.
      principal = position === requirement[0] ? facet : { ...principal, ...facet };
    }
    if (principal) return principal;
  }
  throw unauthorized('Missing credentials', 'MISSING_CREDENTIALS');
}
