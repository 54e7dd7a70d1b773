// /api/projects/{projectId}/data/... and /files...: a project's documents, trash and files for its
// members in the dashboard (session cookie), through the data and storage services.
import type { operations as Ops } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import { firstHeader } from '../http/headers.js';
import type { Services } from '../services/index.js';
import { SESSION_COOKIE } from '../services/accounts.js';
import { STREAM_HEADERS } from './realtime.js';
import { describeOutcome } from '../services/data/bulk-trash.js';

type Query = Record<string, unknown>;
const ok = <T>(data: T, message = '') => ({ success: true as const, data, message });

export function projectContentHandlers({ content, realtime }: Services) {
  const listProjectDocuments: Handler<Ops['listProjectDocuments']> = async ({ params, query }, ctx) => {
    const result = await content.listDocuments(ctx, params.projectId, params.collectionName, query as Query);
    if ('count' in result) return { status: 200, body: ok(result) };
    return { status: 200, body: { ...ok(result.documents), pagination: result.pagination } };
  };
  const createProjectDocument: Handler<Ops['createProjectDocument']> = async ({ params, body }, ctx) => ({
    status: 201,
    body: ok(await content.createDocument(ctx, params.projectId, params.collectionName, body), 'Created'),
  });
  const getProjectDocument: Handler<Ops['getProjectDocument']> = async ({ params, query }, ctx) => ({
    status: 200,
    body: ok(
      await content.getDocument(ctx, params.projectId, params.collectionName, params.id, query as Query),
    ),
  });
  const updateProjectDocument: Handler<Ops['updateProjectDocument']> = async ({ params, body }, ctx) => ({
    status: 200,
    body: ok(
      await content.updateDocument(ctx, params.projectId, params.collectionName, params.id, body),
      'Updated',
    ),
  });
  const deleteProjectDocument: Handler<Ops['deleteProjectDocument']> = async ({ params }, ctx) => ({
    status: 200,
    body: ok(
      await content.deleteDocument(ctx, params.projectId, params.collectionName, params.id),
      'Deleted',
    ),
  });
  const restoreProjectDocument: Handler<Ops['restoreProjectDocument']> = async ({ params }, ctx) => ({
    status: 200,
    body: ok(
      await content.restoreDocument(ctx, params.projectId, params.collectionName, params.id),
      'Restored',
    ),
  });
  const deleteProjectDocuments: Handler<Ops['deleteProjectDocuments']> = async ({ params, body }, ctx) => {
    const outcome = await content.deleteDocuments(ctx, params.projectId, params.collectionName, body.ids);
    return { status: 200, body: ok(outcome, describeOutcome(outcome.counts)) };
  };
  const restoreProjectDocuments: Handler<Ops['restoreProjectDocuments']> = async ({ params, body }, ctx) => {
    const outcome = await content.restoreDocuments(ctx, params.projectId, params.collectionName, body.ids);
    return { status: 200, body: ok(outcome, describeOutcome(outcome.counts)) };
  };
  /**
   * The public stream's events, with the member's session standing for the secret key; the
   * session and the membership are asked again on each heartbeat.
   */
  const streamProjectDocuments: Handler<Ops['streamProjectDocuments']> = async (
    { params, query, headers, cookies },
    ctx,
  ) => {
    const session = cookies.get(SESSION_COOKIE);
    const stream = await realtime.open(
      await content.asProject(ctx, params.projectId),
      params.collectionName,
      query as Query,
      firstHeader(headers, 'last-event-id'),
      { accessEnded: async () => !(await content.stillMember(ctx, params.projectId, session)) },
    );
    return { status: 200, body: stream, headers: STREAM_HEADERS };
  };

  const listProjectFiles: Handler<Ops['listProjectFiles']> = async ({ params, query }, ctx) => {
    const { files, pagination } = await content.listFiles(ctx, params.projectId, query.cursor, query.limit);
    const data = files.map((f) => ({ ...f, createdAt: f.createdAt.toISOString() }));
    return { status: 200, body: { ...ok(data), pagination } };
  };
  const requestProjectUpload: Handler<Ops['requestProjectUpload']> = async ({ params, body }, ctx) => ({
    status: 200,
    body: ok(await content.requestUpload(ctx, params.projectId, body), 'Upload URL created'),
  });
  const confirmProjectUpload: Handler<Ops['confirmProjectUpload']> = async ({ params, body }, ctx) => {
    const data = await content.confirmUpload(ctx, params.projectId, body);
    return { status: 200, body: ok(data, data.message) };
  };
  const deleteProjectFile: Handler<Ops['deleteProjectFile']> = async ({ params, body }, ctx) => {
    await content.deleteFile(ctx, params.projectId, body.path);
    return {
      status: 200,
      body: { success: true, data: {}, message: 'File deleted successfully' },
    };
  };

  return {
    listProjectDocuments,
    createProjectDocument,
    getProjectDocument,
    updateProjectDocument,
    deleteProjectDocument,
    restoreProjectDocument,
    deleteProjectDocuments,
    restoreProjectDocuments,
    streamProjectDocuments,
    listProjectFiles,
    requestProjectUpload,
    confirmProjectUpload,
    deleteProjectFile,
  };
}
