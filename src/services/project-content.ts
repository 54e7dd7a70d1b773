// A project's documents and files as its members see them in the dashboard: the data and storage
// services, called with the member's session instead of an API key. Any member (admin or member)
// reads and writes, with the secret key's rights (RLS does not apply; the `users` collection stays
// reserved to /api/projects/{id}/users), since members already manage the collections themselves.
import { ApiError, badRequest } from '../http/errors.js';
import { isObjectId } from '../db/ids.js';
import type { FilesRepo } from '../db/files.js';
import type { AccountsService } from './accounts.js';
import type { RequestContext } from './context.js';
import type { DataService } from './data/index.js';
import type { ProjectsService } from './projects.js';
import type { UploadsService } from './storage/uploads.js';
import type { FileRecord } from './storage/types.js';

type Query = Record<string, unknown>;

export const MAX_FILES_PAGE = 100;

export interface FileView {
  path: string;
  filename: string;
  contentType: string;
  size: number;
  provider: FileRecord['provider'];
  url: string | null;
  ownerUserId: string | null;
  createdAt: Date;
}

const fileView = (r: FileRecord): FileView => ({
  path: r.path,
  filename: r.filename,
  contentType: r.contentType,
  size: r.size ?? r.declaredSize,
  provider: r.provider,
  url: r.url,
  ownerUserId: r.ownerUserId,
  createdAt: r.confirmedAt ?? r.createdAt,
});

export function projectContentService(
  projects: ProjectsService,
  data: DataService,
  uploads: UploadsService,
  files: FilesRepo,
  accounts: AccountsService,
) {
  /** The member's request as the project's secret key would make it. */
  async function asProject(ctx: RequestContext, projectId: string): Promise<RequestContext> {
    const project = await projects.requireAccess(ctx, projectId, 'member');
    // Field by field: a context's logger may be a getter of its class, which a spread would drop.
    return { requestId: ctx.requestId, log: ctx.log, ip: ctx.ip, principal: { project, keyKind: 'secret' } };
  }

  return {
    /** The member's request as the secret key would make it (the collection's live stream). */
    asProject,
    /**
     * Whether the session a long-lived request was opened with still opens it: not logged out,
     * not ended by a password change, not expired, and its developer still a member of the
     * project. Asked again on each heartbeat of the stream, since the stream runs as the secret
     * key. A failing database throws (the caller asks again), only a definite no is false.
     */
    async stillMember(ctx: RequestContext, projectId: string, sessionToken: string | undefined) {
      const developer = sessionToken ? await accounts.sessionDeveloper(sessionToken) : undefined;
      if (!developer) return false;
      try {
        await projects.requireAccess(
          { requestId: ctx.requestId, log: ctx.log, ip: ctx.ip, principal: { developer } },
          projectId,
          'member',
        );
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return false;
        throw err;
      }
    },
    async listDocuments(ctx: RequestContext, projectId: string, name: string, query: Query) {
      const { trash, ...rest } = query;
      return data.list(await asProject(ctx, projectId), name, rest, trash === true || trash === 'true');
    },
    async createDocument(ctx: RequestContext, projectId: string, name: string, body: unknown) {
      return data.create(await asProject(ctx, projectId), name, body);
    },
    async getDocument(ctx: RequestContext, projectId: string, name: string, id: string, query: Query) {
      return data.get(await asProject(ctx, projectId), name, id, query);
    },
    async updateDocument(ctx: RequestContext, projectId: string, name: string, id: string, body: unknown) {
      return data.update(await asProject(ctx, projectId), name, id, body);
    },
    async deleteDocument(ctx: RequestContext, projectId: string, name: string, id: string) {
      return data.remove(await asProject(ctx, projectId), name, id);
    },
    async restoreDocument(ctx: RequestContext, projectId: string, name: string, id: string) {
      return data.restore(await asProject(ctx, projectId), name, id);
    },
    async deleteDocuments(ctx: RequestContext, projectId: string, name: string, ids: unknown) {
      return data.trashMany(await asProject(ctx, projectId), name, ids);
    },
    async restoreDocuments(ctx: RequestContext, projectId: string, name: string, ids: unknown) {
      return data.restoreMany(await asProject(ctx, projectId), name, ids);
    },

    /** Confirmed files, newest first; `cursor` is the last path's record id of the page before. */
    async listFiles(ctx: RequestContext, projectId: string, cursor: string | undefined, limit = 50) {
      const { principal } = await asProject(ctx, projectId);
      if (cursor !== undefined && !isObjectId(cursor)) {
        throw badRequest(
          'Invalid cursor: pass pagination.nextCursor of the previous page',
          [{ path: 'query.cursor', message: 'must be a nextCursor from this endpoint' }],
          'INVALID_QUERY',
        );
      }
      const size = Math.min(limit, MAX_FILES_PAGE);
      const rows = await files.listConfirmed(principal.project!.id, cursor, size + 1);
      const hasMore = rows.length > size;
      const page = hasMore ? rows.slice(0, size) : rows;
      return {
        files: page.map(fileView),
        pagination: { limit: size, hasMore, nextCursor: hasMore ? page[page.length - 1]!.id : null },
      };
    },
    async requestUpload(
      ctx: RequestContext,
      projectId: string,
      input: { filename: string; contentType: string; size: number },
    ) {
      return uploads.requestUpload(await asProject(ctx, projectId), input);
    },
    async confirmUpload(ctx: RequestContext, projectId: string, input: { filePath: string; size: number }) {
      return uploads.confirmUpload(await asProject(ctx, projectId), input);
    },
    async deleteFile(ctx: RequestContext, projectId: string, path: string) {
      return uploads.deleteFile(await asProject(ctx, projectId), path);
    },
  };
}

export type ProjectContentService = ReturnType<typeof projectContentService>;
