// The middleware chain shared by both HTTP roles: request id and access log, the one place that
// turns errors into HTTP, the JSON body parser with its size limit, and the JSON 404.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type Router from '@koa/router';
import { koaBody, HttpMethodEnum } from 'koa-body';
import type { Logger } from '../lib/logger.js';
import type { Principal } from '../services/context.js';
import type { Project } from '../services/types.js';
import type { RecordedRequest } from '../services/request-log/buffer.js';
import { ApiError, payloadTooLarge } from './errors.js';
import { setHeaders } from './headers.js';
import { owningLayers } from './route-owner.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The request's `ctx.state`: its id, and its logger (whose lines carry the id), built the first
 * time something logs; most requests write only the access line and never need one. A class, so
 * the lazy getter is defined once on its prototype rather than on every request's object.
 */
export class RequestState {
  #log: Logger | undefined;
  /** Who called, once a route resolved the credentials (the request log reads the project). */
  principal: Principal | undefined = undefined;
  /** The API key's project once known, even when the request then fails (CORS reads it). */
  keyProject: Project | undefined = undefined;
  /** What the project's request log says about this request, besides its outcome (CORS sets it). */
  note: string | undefined = undefined;
  constructor(
    private readonly base: Logger,
    readonly requestId: string,
  ) {}

  get log(): Logger {
    return (this.#log ??= this.base.child({ requestId: this.requestId }));
  }
}

/**
 * Request id and access log; with `record`, also the project's request log (public API): one
 * object handed to an in-memory buffer for each request whose API key resolved, never awaited.
 */
export function requestContext(log: Logger, record?: (entry: RecordedRequest) => void) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    const state = new RequestState(log, requestId);
    ctx.state = state;
    ctx.res.setHeader('x-request-id', requestId);
    try {
      await next();
    } finally {
      const ms = Math.round((performance.now() - started) * 100) / 100;
      // The same line the request's child logger writes, without building one for every request.
      log.info({ requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms }, 'request');
      const project = state.principal?.project;
      if (record && project) {
        record({
          projectId: project.id,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs: ms,
          keyKind: state.principal!.keyKind ?? null,
          userId: state.principal!.endUser?.id ?? null,
          requestId,
          at: Date.now(),
          note: state.note,
        });
      }
    }
  };
}

function errorBody(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  return { success: false, data: null, message, code, ...extra };
}

/**
 * First in the chain: every error becomes the JSON error envelope. `translate` turns errors of
 * the layers below that cannot throw ApiErrors themselves (a database that cannot be reached,
 * src/db/errors.ts) into one.
 */
export function errorHandler(translate: (err: unknown) => ApiError | undefined = () => undefined) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (caught) {
      const err = caught instanceof ApiError ? caught : (translate(caught) ?? caught);
      if (err instanceof ApiError) {
        // The cause of a client error (a database refusal) is logged, never sent.
        // A 503 (a dependency down) is the operator's concern: a warning.
        if (err.cause) {
          const { log } = ctx.state as RequestState;
          (err.status >= 500 ? log.warn : log.info).call(
            log,
            { err: err.cause, code: err.code },
            'request refused',
          );
        }
        ctx.status = err.status;
        if (err.headers) setHeaders(ctx, err.headers);
        ctx.body = errorBody(err.status, err.code, err.message, {
          ...(err.details ? { details: err.details } : {}),
          ...err.fields,
        });
        return;
      }
      const { requestId, log } = ctx.state as RequestState;
      log.error({ err }, 'unhandled error');
      ctx.status = 500;
      ctx.body = errorBody(500, 'INTERNAL_ERROR', 'Internal server error', { requestId });
    }
  };
}

/** Body parser failures are the client's mistake: a JSON 400, 413 or 415, never a 500. */
function bodyError(err: Error & { status?: number; type?: string }): never {
  if (err.status === 413) throw payloadTooLarge('Request body is too large');
  if (err.status === 415) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type');
  // The parser refuses prototype keys (prototype poisoning) in well-formed JSON: say which rule.
  if (/forbidden prototype property/.test(err.message)) {
    throw new ApiError(400, 'INVALID_JSON', 'Request body has a "__proto__" or "constructor.prototype" key');
  }
  if (err.status === 400 || err instanceof SyntaxError) {
    throw new ApiError(400, 'INVALID_JSON', 'Request body is not valid JSON');
  }
  throw err;
}

/** Paths whose handler reads the request stream itself (raw bytes PUT to signed upload URLs). */
export const RAW_BODY_PATHS = ['/api/storage/objects/'];

/** Methods whose JSON body is parsed; koa-body leaves the others alone after sniffing their Content-Type. */
const BODY_METHODS = [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE];
const WITH_BODY = new Set<string>(BODY_METHODS);

export function jsonBody(limitBytes: number) {
  const parse = koaBody({
    json: true,
    multipart: false,
    urlencoded: false,
    text: false,
    jsonLimit: limitBytes,
    jsonStrict: true,
    onError: bodyError,
    parsedMethods: BODY_METHODS,
  });
  return (ctx: Context, next: Next) =>
    !WITH_BODY.has(ctx.method) || RAW_BODY_PATHS.some((prefix) => ctx.path.startsWith(prefix))
      ? next()
      : parse(ctx, next);
}

/** Last in the chain: a JSON 405 (with Allow) when the path exists, else a JSON 404. */
export function notFoundFallback(routers: Router[]) {
  return async (ctx: Context) => {
    const allowed = new Set<string>();
    // Reached when no route answered: the path's owners (route-owner.ts) lack the method, or no
    // route has the path. A shadowed route that has the method passed the request on.
    const layers = routers.flatMap((router) => router.match(ctx.path, ctx.method).path);
    for (const layer of owningLayers(layers)) for (const m of layer.methods) allowed.add(m);
    if (allowed.size > 0 && !allowed.has(ctx.method)) {
      ctx.set('Allow', [...allowed].join(', '));
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}`);
    }
    throw new ApiError(404, 'ROUTE_NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
  };
}
