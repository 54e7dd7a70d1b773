// Realtime streams of a collection's document events (`GET /api/realtime/:collectionName`): the
// publisher on the event seam (one cache call per write, no database read; nothing is logged or
// sent while no process has a subscriber for the collection), the per-process hub, and opening a
// stream under the read rules, the filters and the caps on concurrent connections (slots.ts).
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Cache, LogLimits } from '../../cache/index.js';
import { badRequest } from '../../http/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { RequestContext } from '../context.js';
import { openCollection, readScope, USERS_COLLECTION, type DefinitionLookup } from '../data/access.js';
import { RESERVED_PARAMS } from '../data/filters.js';
import type { Listener } from '../events.js';
import type { PlanLimits, Project } from '../types.js';
import { BufferBudget } from './buffer-budget.js';
import { Connection, type ConnectionSettings } from './connection.js';
import { realtimeHub, streamName, type WireEvent } from './hub.js';
import { compileFilters } from './matcher.js';
import { regexBudgets } from './regex-budget.js';
import { listenedStreams } from './listened.js';
import { realtimeSlots } from './slots.js';

export interface RealtimeSettings {
  replayEvents: number;
  replaySeconds: number;
  heartbeatMs: number;
  maxBufferedBytes: number;
  /** Streams of one project from one client IP at most (0 = no cap); the secret key's are exempt. */
  connectionsPerIp: number;
  /** ...and at most this share of the plan's cap. */
  ipSharePercent: number;
  /** Share of the plan's cap kept for streams with a signed-in end user or the secret key. */
  reservedPercent: number;
  /** Streams one process holds at most. */
  connectionsPerProcess: number;
  /** Bytes all of this process's streams may have queued unsent (slow readers dropped past it). */
  maxBufferedBytesPerProcess: number;
  /** Milliseconds of regular-expression matching per second a project may use in one process. */
  regexMsPerSecond: number;
}

export interface RealtimeDeps {
  cache: Cache;
  definitions: DefinitionLookup;
  limitsOf: (project: Project) => Promise<PlanLimits>;
  isRevoked: (projectId: string, userId: string, issuedAt: number | undefined) => Promise<boolean>;
  /** The project as it is now (cached under its version); undefined once deleted. */
  currentProject: (projectId: string) => Promise<Project | undefined>;
  log: Logger;
  settings: RealtimeSettings;
}

/** Query parameters of the stream itself (not filters). */
export const STREAM_PARAMS = ['last_event_id'];
const RETRY_MS = 2000;

function unsupportedOption(param: string): never {
  const problem = `${param} is an option of the list endpoint; a realtime stream takes filters only`;
  throw badRequest(
    `Invalid parameter "${param}": ${problem}`,
    [{ path: `query.${param}`, message: problem }],
    'UNSUPPORTED_PARAMETER',
  );
}

/** `<epoch>-<seq>`; anything else resumes nowhere, which the stream reports as a gap. */
function parseEventId(raw: string | undefined): { epoch: string; seq: number } | undefined {
  if (raw === undefined || raw === '') return undefined;
  const match = /^([0-9a-z]{1,32})-(\d{1,15})$/.exec(raw);
  return match ? { epoch: match[1]!, seq: Number(match[2]) } : { epoch: 'unknown', seq: 0 };
}

export function realtimeService(deps: RealtimeDeps) {
  const { cache, settings, log } = deps;
  const logLimits: LogLimits = { capacity: settings.replayEvents, ttlSeconds: settings.replaySeconds };
  const streams = listenedStreams(cache, logLimits);
  const hub = realtimeHub({ ...cache, eventLog: streams.eventLog }, deps.definitions, logLimits, log);
  const connectionSettings: ConnectionSettings = {
    heartbeatMs: settings.heartbeatMs,
    maxBufferedBytes: settings.maxBufferedBytes,
    budget: new BufferBudget(settings.maxBufferedBytesPerProcess),
    retryMs: RETRY_MS,
  };
  const slots = realtimeSlots(cache, settings, log);
  const regexes = regexBudgets({ msPerSecond: settings.regexMsPerSecond, log });
  /** Open connections of this process by project (ended at shutdown). */
  const open = new Map<string, Map<string, Connection>>();

  /** The event-seam listener: logs and publishes document events (not awaited by the write). */
  const publish: Listener = (event) => {
    if (!event.name.startsWith('document.') || event.collection === USERS_COLLECTION) return;
    streams.append(
      streamName(event.projectId, event.collection),
      // Built only for a stream someone listens to.
      () => {
        const wire: WireEvent = {
          type: event.name as WireEvent['type'],
          id: event.documentId,
          at: event.at.toISOString(),
          doc: event.name === 'document.deleted' ? (event.removed ?? null) : event.document,
        };
        return JSON.stringify(wire);
      },
      (err: unknown) => log.warn({ err, projectId: event.projectId }, 'realtime: publishing an event failed'),
    );
  };

  return {
    publish,

    /**
     * Opens the stream of a collection: the same key, token and RLS rules as a list, its filters
     * (evaluated in memory per event), resumed after `lastEventId` when given.
     */
    async open(
      ctx: RequestContext,
      name: string,
      query: Record<string, unknown>,
      lastEventId: string | undefined,
      /** `accessEnded`: a further check on each heartbeat (a member's session on the dashboard). */
      options: { accessEnded?: () => Promise<boolean> } = {},
    ): Promise<Readable> {
      const target = await openCollection(ctx, name, deps.definitions);
      readScope(target);
      const filters: Record<string, unknown> = {};
      for (const [param, value] of Object.entries(query)) {
        if (STREAM_PARAMS.includes(param)) continue;
        if (RESERVED_PARAMS.has(param)) unsupportedOption(param);
        filters[param] = value;
      }
      const filter = compileFilters(target.def, filters, regexes.of(target.caller.project.id));
      const queryId = typeof query.last_event_id === 'string' ? query.last_event_id : undefined;
      const after = parseEventId(lastEventId ?? queryId);

      const { project, keyKind, userId } = target.caller;
      const limit = (await deps.limitsOf(project)).realtimeConnectionsPerProject;
      const id = randomUUID();
      const release = await slots.admit(
        {
          projectId: project.id,
          limit,
          ip: keyKind === 'secret' ? undefined : ctx.ip,
          anonymous: keyKind !== 'secret' && !userId,
        },
        id,
      );
      const keyCreatedAt = project.keys[keyKind].createdAt.getTime();
      const endUser = ctx.principal.endUser;
      const token =
        userId && endUser ? { issuedAt: endUser.issuedAt, expiresAt: endUser.expiresAt } : undefined;
      let leave: (() => void) | undefined;
      const connection = new Connection(
        connectionSettings,
        { keyKind, userId, filter, token },
        {
          isRevoked: token && userId ? () => deps.isRevoked(project.id, userId, token.issuedAt) : undefined,
          accessEnded: options.accessEnded,
          // A rotation gives the key kind a new creation time; a deleted project has no keys.
          keyRevoked: async () =>
            (await deps.currentProject(project.id))?.keys[keyKind].createdAt.getTime() !== keyCreatedAt,
          onEnd: () => {
            leave?.();
            const mine = open.get(project.id);
            mine?.delete(id);
            if (mine?.size === 0) open.delete(project.id);
            release();
          },
        },
      );
      try {
        leave = await hub.join(project.id, target.def.name, connection.sink);
        const opened = await streams.eventLog.open(streamName(project.id, target.def.name), logLimits, after);
        let mine = open.get(project.id);
        if (!mine) open.set(project.id, (mine = new Map()));
        mine.set(id, connection);
        connection.start(opened, target.def, after?.seq);
        return connection.stream;
      } catch (err) {
        connection.stream.destroy();
        throw err;
      }
    },

    /** Streams this process holds. */
    held: slots.held,

    /** Ends every open stream (shutdown), telling clients to reconnect. */
    close(): void {
      for (const connections of open.values()) for (const c of connections.values()) c.end('SERVER_SHUTDOWN');
      hub.close();
      slots.close();
    },
  };
}

export type RealtimeService = ReturnType<typeof realtimeService>;
