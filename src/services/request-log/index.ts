// The per-project request log of the public API (the dashboard's "Request log" page): recorded
// off the request path in batches (buffer.ts), bounded per project by count (trimmed after
// writes) and by age (the worker's expiry sweep; older entries are never listed), read by members.
import { badRequest } from '../../http/errors.js';
import { isObjectId } from '../../db/ids.js';
import type { RequestLogEntry, RequestLogsRepo } from '../../db/request-logs.js';
import type { RequestLogSettings } from '../../config.js';
import type { Logger } from '../../lib/logger.js';
import type { RequestContext } from '../context.js';
import type { ProjectsService } from '../projects.js';
import { requestLogBuffer, type RecordedRequest } from './buffer.js';

const DAY_MS = 86_400_000;
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
/** A project's count is trimmed after this share of its bound was written since the last trim. */
const TRIM_SHARE = 0.1;

export interface RequestLogListQuery {
  status?: StatusClass;
  path?: string;
  cursor?: string;
  limit?: number;
}

export function requestLogService(deps: {
  repo: RequestLogsRepo;
  projects: ProjectsService;
  /** Whether a developer may see a project (a member, within the token's projects). */
  reaches: (projectId: string, developerId: string, tokenProjects: string[] | null) => Promise<boolean>;
  settings: RequestLogSettings;
  log: Logger;
  now?: () => number;
}) {
  const { repo, settings } = deps;
  const now = deps.now ?? Date.now;
  const trimEvery = Math.max(1, Math.ceil(settings.maxEntries * TRIM_SHARE));
  const sinceTrim = new Map<string, number>();
  const buffer = requestLogBuffer({
    write: (entries) => repo.insertMany(entries),
    written: async (perProject) => {
      for (const [projectId, count] of perProject) {
        const total = (sinceTrim.get(projectId) ?? 0) + count;
        if (total < trimEvery) {
          sinceTrim.set(projectId, total);
          continue;
        }
        sinceTrim.delete(projectId);
        await repo.trim(projectId, settings.maxEntries);
      }
    },
    bufferEntries: settings.bufferEntries,
    log: deps.log,
  });
  deps.projects.onDelete((projectId) => repo.deleteProject(projectId));

  return {
    enabled: settings.enabled,
    record: buffer.record,
    /**
     * A dashboard request made with a personal access token, into the log of the project it named,
     * once the token's developer is found to reach that project (so nobody can write into the log
     * of a project that is not theirs). Off the request: never awaited, never throws.
     */
    recordAccessToken(entry: RecordedRequest, developerId: string, tokenProjects: string[] | null): void {
      void deps
        .reaches(entry.projectId, developerId, tokenProjects)
        .then((reached) => reached && buffer.record(entry))
        .catch((err: unknown) =>
          deps.log.warn({ err }, 'request log: an access token request was not recorded'),
        );
    },
    flush: buffer.flush,
    stats: buffer.stats,
    close: buffer.close,

    /** Deletes entries past the age bound (the worker's expiry sweep). */
    sweep: (at: Date) => repo.deleteOlderThan(new Date(at.getTime() - settings.maxAgeDays * DAY_MS)),

    async list(ctx: RequestContext, projectId: string, query: RequestLogListQuery) {
      await deps.projects.requireAccess(ctx, projectId, 'member');
      if (query.cursor !== undefined && !isObjectId(query.cursor)) {
        throw badRequest(
          'Invalid cursor: pass pagination.nextCursor of the previous page',
          [{ path: 'query.cursor', message: 'must be a nextCursor from this endpoint' }],
          'INVALID_CURSOR',
        );
      }
      const limit = Math.min(Math.max(query.limit ?? 50, 1), 200);
      const from = query.status ? Number(query.status[0]) * 100 : undefined;
      const rows = await repo.list(projectId, {
        status: from === undefined ? undefined : { from, to: from + 100 },
        pathPrefix: query.path || undefined,
        before: query.cursor,
        since: new Date(now() - settings.maxAgeDays * DAY_MS),
        limit,
      });
      const hasMore = rows.length > limit;
      const entries: RequestLogEntry[] = hasMore ? rows.slice(0, limit) : rows;
      return {
        entries,
        pagination: { limit, hasMore, nextCursor: hasMore ? entries[entries.length - 1]!.id : null },
        enabled: settings.enabled,
      };
    },
  };
}

export type RequestLogService = ReturnType<typeof requestLogService>;
