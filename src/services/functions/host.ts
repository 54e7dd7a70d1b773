// What `ctx` offers hosted code, bound to one project and one caller before the code runs: ctx.db
// goes through the data service as the caller (RLS, quotas, events and hooks apply; a
// `privileged` function acts with the secret key's rights instead), ctx.fetch goes out under the
// webhook rules (src/services/functions/host-fetch.ts). Nothing the code passes can name another
// project or database: only a collection name, an id, filters, a body or a pipeline cross.
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { RequestContext } from '../context.js';
import type { DataService } from '../data/index.js';
import type { KeyKind, Project } from '../types.js';
import { hostedFetch, type FetchRules } from './host-fetch.js';
import type { HostedHost, HostedRuntime, InvocationLimits } from './runtime-types.js';

/** Writes one invocation may make through ctx.db (reads count only against maxDbCalls). */
export const MAX_WRITES_PER_INVOCATION = 20;
/** Functions nested deeper than this (a function's write running another function) cannot write. */
export const MAX_FUNCTION_DEPTH = 2;
const ACTIONS = ['list', 'get', 'create', 'update', 'delete', 'count', 'aggregate'] as const;
type Action = (typeof ACTIONS)[number];
const WRITES: ReadonlySet<Action> = new Set(['create', 'update', 'delete']);
const MAX_NAME = 128;

export interface HostOptions {
  data: Pick<DataService, 'list' | 'get' | 'create' | 'update' | 'remove' | 'aggregate'>;
  /** The request (or job) that made the function run: its project and its caller. */
  caller: RequestContext;
  /** Secret-key rights for ctx.db instead of the caller's. */
  privileged: boolean;
  /** This function's nesting: 1 when a client's request ran it, 2 when a function's write did. */
  depth: number;
  /** Writes (create, update, delete) one invocation may make. */
  maxWrites: number;
  fetch: FetchRules;
}

const refuse = (message: string, code = 'FUNCTION_LIMIT') => new ApiError(400, code, message);

/** The context ctx.db acts in: the caller's own rights, or the secret key's when privileged. */
export function dbContext(caller: RequestContext, privileged: boolean, depth: number): RequestContext {
  const { project } = caller.principal;
  if (!project) throw new Error('a hosted function runs for a project');
  const principal = privileged ? { project, keyKind: 'secret' as const } : caller.principal;
  return { ...caller, principal, functionDepth: depth };
}

export function hostFor(options: HostOptions): HostedHost {
  const ctx = dbContext(options.caller, options.privileged, options.depth);
  let writes = 0;
  return {
    async db(op) {
      const { action, collection } = op as { action: unknown; collection: unknown };
      if (typeof action !== 'string' || !ACTIONS.includes(action as Action)) {
        throw badRequest(`ctx.db: the action must be one of ${ACTIONS.join(', ')}`);
      }
      if (typeof collection !== 'string' || !collection || collection.length > MAX_NAME) {
        throw badRequest('ctx.db: the collection must be a collection name');
      }
      if (WRITES.has(action as Action)) {
        if (options.depth >= MAX_FUNCTION_DEPTH) {
          throw refuse(
            `ctx.db: a function run by another function's write cannot write (at most ${MAX_FUNCTION_DEPTH} functions deep)`,
            'FUNCTION_DEPTH',
          );
        }
        if (++writes > options.maxWrites) {
          throw refuse(`ctx.db: at most ${options.maxWrites} writes per invocation`);
        }
      }
      const id = () => {
        if (typeof op.id !== 'string' || !op.id) throw badRequest('ctx.db: the id must be a string');
        return op.id;
      };
      const query = stringRecord(op.query);
      switch (action as Action) {
        case 'list': {
          const page = await options.data.list(ctx, collection, query);
          return 'count' in page ? page : page.documents;
        }
        case 'count': {
          const counted = await options.data.list(ctx, collection, { ...query, count: 'true' });
          return 'count' in counted ? counted.count : counted.documents.length;
        }
        case 'get':
          return options.data.get(ctx, collection, id(), query);
        case 'create':
          return options.data.create(ctx, collection, op.body);
        case 'update':
          return options.data.update(ctx, collection, id(), op.body);
        case 'delete':
          return options.data.remove(ctx, collection, id());
        case 'aggregate':
          if (!Array.isArray(op.pipeline))
            throw badRequest('ctx.db: the pipeline must be an array of stages');
          return options.data.aggregate(ctx, collection, op.pipeline, {});
      }
    },
    fetch: (req) => hostedFetch(req, options.fetch),
  };
}

/** Query parameters as the HTTP API receives them: strings only. */
function stringRecord(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw badRequest('ctx.db: the query must be an object');
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'object' && v !== null)
      throw badRequest(`ctx.db: the query value of ${key} must be a string`);
    out[key] = String(v);
  }
  return out;
}

/** Who an invocation runs for, as the trigger service knows it. */
export interface InvocationCallerLike {
  keyKind: KeyKind | null;
  userId: string | null;
  /** The project, when the trigger path has it at hand (else it is loaded by id). */
  project?: Project;
  /** The functionDepth of the request whose write ran this function (0 or absent: a client's). */
  depth?: number;
}

export interface WiringDeps {
  runtime: HostedRuntime;
  data: HostOptions['data'];
  projectById: (projectId: string) => Promise<Project | null | undefined>;
  fetch: FetchRules;
  maxWrites: number;
  log: Logger;
}

/**
 * The hosted runtime with the host it offers code, as the trigger service's seam takes it: the
 * host of one call is bound to the function's project and the call's caller. A call without a
 * caller (a schedule) has the publishable key's rights unless the function is privileged.
 */
export function hostedWiring(deps: WiringDeps) {
  return {
    runtime: deps.runtime,
    hostFor(
      fn: { projectId: string; runtime: { type: string; privileged?: boolean } },
      caller: InvocationCallerLike,
      limits: InvocationLimits,
    ): HostedHost {
      let host: Promise<HostedHost> | undefined;
      const bound = () =>
        (host ??= (async () => {
          const project = caller.project ?? (await deps.projectById(fn.projectId));
          if (!project || project.id !== fn.projectId) throw notFound('ctx.db: the project is gone');
          const endUser = caller.userId ? { id: caller.userId, projectId: project.id } : undefined;
          const context: RequestContext = {
            requestId: `fn-${Date.now().toString(36)}`,
            log: deps.log,
            ip: '',
            principal: { project, keyKind: caller.keyKind ?? 'publishable', ...(endUser ? { endUser } : {}) },
          };
          return hostFor({
            data: deps.data,
            caller: context,
            privileged: fn.runtime.type === 'javascript' && fn.runtime.privileged === true,
            depth: (caller.depth ?? 0) + 1,
            maxWrites: deps.maxWrites,
            fetch: { ...deps.fetch, timeoutMs: Math.min(deps.fetch.timeoutMs, limits.deadlineMs) },
          });
        })());
      return {
        db: async (op) => (await bound()).db(op),
        fetch: async (req) => (await bound()).fetch(req),
      };
    },
  };
}
