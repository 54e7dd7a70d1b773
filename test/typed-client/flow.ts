// An integrator's program, written only against the types generated from the published
// /openapi.json of both roles (test/api/typed-client.test.ts copies it next to `public.d.ts` and
// `dashboard.d.ts`, type-checks it with tsc, then runs it). Not part of the project's own
// compilation: those two files exist only in the test's workspace.
import createClient from 'openapi-fetch';
import type { paths as DashboardPaths } from './dashboard.js';
import type { paths as PublicPaths } from './public.js';

export interface FlowInput {
  publicUrl: string;
  dashboardUrl: string;
  email: string;
  password: string;
  /** The token of the confirmation link mailed to `email` (the integrator reads their mail). */
  confirmationToken: (email: string) => Promise<string>;
}

export interface FlowResult {
  projectId: string;
  collection: string;
  userId: string;
  noteId: string;
  listed: { _id: string; text: unknown; userId: unknown }[];
  fileUrl: string | null;
  fileBody: string;
  deletedNoteId: string;
  deletedFile: string;
  afterDelete: number;
}

/** Fails with the answer's message, as an app would surface it. */
function must<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) {
    throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

export async function runFlow(input: FlowInput): Promise<FlowResult> {
  const dashboard = createClient<DashboardPaths>({ baseUrl: input.dashboardUrl });
  const api = createClient<PublicPaths>({ baseUrl: input.publicUrl });

  // Developer sign-up, confirmed with the mailed link: the session comes back as a cookie, sent
  // on every dashboard call.
  const started = await dashboard.POST('/api/auth/signup', {
    body: { email: input.email, password: input.password },
  });
  must(started, 'developer sign-up');
  const signup = await dashboard.POST('/api/auth/signup/confirm', {
    body: { token: await input.confirmationToken(input.email), password: input.password },
  });
  must(signup, 'sign-up confirmation');
  const cookie = (signup.response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const session = { headers: { cookie } };

  const project = must(
    await dashboard.POST('/api/projects', { ...session, body: { name: 'Typed client' } }),
    'create project',
  ).data;
  const projectId = project.project.id;
  const { publishable, secret } = project.keys;

  // Notes belong to the end user who wrote them (RLS, private).
  const collection = 'notes';
  must(
    await dashboard.POST('/api/projects/{projectId}/collections', {
      ...session,
      params: { path: { projectId } },
      body: {
        name: collection,
        mode: 'schema',
        fields: [
          { name: 'text', type: 'String', required: true },
          { name: 'userId', type: 'String' },
        ],
        rls: { enabled: true, mode: 'private', ownerField: 'userId' },
      },
    }),
    'create collection',
  );
  must(
    await dashboard.POST('/api/projects/{projectId}/collections', {
      ...session,
      params: { path: { projectId } },
      // openapi-typescript marks properties with a default as present (its `defaultNonNullable`),
      // so `mode` is named even though the service defaults it to `flexible`.
      body: {
        name: 'users',
        mode: 'flexible',
        fields: [{ name: 'email', type: 'String', required: true, unique: true }],
      },
    }),
    'create users collection',
  );

  // End-user sign-up with the publishable key.
  const user = must(
    await api.POST('/api/userAuth/signup', {
      headers: { 'x-api-key': publishable },
      body: { email: `end-${input.email}`, password: input.password },
    }),
    'end-user sign-up',
  ).data;
  const asUser = { 'x-api-key': publishable, authorization: `Bearer ${user.accessToken}` };

  const note = must(
    await api.POST('/api/data/{collectionName}', {
      params: { path: { collectionName: collection } },
      headers: asUser,
      body: { text: 'typed hello' },
    }),
    'insert',
  ).data;

  const list = must(
    await api.GET('/api/data/{collectionName}', {
      params: { path: { collectionName: collection }, query: { sort: 'createdAt:desc', limit: 10 } },
      headers: asUser,
    }),
    'query',
  );
  const listed = (list.data as Record<string, unknown>[]).map((doc) => ({
    _id: String(doc._id),
    text: doc.text,
    userId: doc.userId,
  }));

  // Presigned upload: ask for a URL, PUT the bytes there, confirm.
  const bytes = 'hello from a typed client';
  const requested = must(
    await api.POST('/api/storage/upload-request', {
      headers: { 'x-api-key': secret },
      body: { filename: 'hello.txt', contentType: 'text/plain', size: Buffer.byteLength(bytes) },
    }),
    'upload request',
  ).data;
  const put = await fetch(requested.signedUrl, {
    method: 'PUT',
    headers: { 'content-type': 'text/plain' },
    body: bytes,
  });
  if (!put.ok) throw new Error(`upload PUT: ${put.status} ${await put.text()}`);
  const confirmed = must(
    await api.POST('/api/storage/upload-confirm', {
      headers: { 'x-api-key': secret },
      body: { filePath: requested.filePath, size: Buffer.byteLength(bytes) },
    }),
    'upload confirm',
  ).data;
  const fileBody = confirmed.url ? await (await fetch(confirmed.url)).text() : '';

  const deleted = must(
    await api.DELETE('/api/data/{collectionName}/{id}', {
      params: { path: { collectionName: collection, id: note._id } },
      headers: asUser,
    }),
    'delete document',
  ).data;
  must(
    await api.DELETE('/api/storage/file', {
      headers: { 'x-api-key': secret },
      body: { path: confirmed.path },
    }),
    'delete file',
  );
  const after = await api.GET('/api/data/{collectionName}/{id}', {
    params: { path: { collectionName: collection, id: note._id } },
    headers: asUser,
  });

  return {
    projectId,
    collection,
    userId: String(user.user._id),
    noteId: String(note._id),
    listed,
    fileUrl: confirmed.url,
    fileBody,
    deletedNoteId: deleted.id,
    deletedFile: confirmed.path,
    afterDelete: after.response.status,
  };
}
