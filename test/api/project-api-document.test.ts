import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { contextFor, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { clientWorkspace } from '../helpers/project-client.js';
import { PROGRAM } from '../helpers/project-client-program.js';
import { LOCAL_VERSION_MS } from '../../src/services/project-cache.js';

type Doc = {
  openapi: string;
  info: { version: string; description: string };
  servers: { url: string }[];
  paths: Record<string, any>;
  components: { schemas: Record<string, any>; securitySchemes: Record<string, any> };
};

/** A blog: a users schema with a protected and a private field, a schema collection with Refs,
 * a flexible collection, and a private RLS collection. */
const COLLECTIONS = [
  {
    name: 'users',
    mode: 'schema',
    fields: [
      { name: 'email', type: 'String', required: true, unique: true },
      { name: 'password', type: 'String', required: true },
      { name: 'name', type: 'String' },
      { name: 'role', type: 'String', protected: true, default: 'member' },
      { name: 'phone', type: 'String', private: true },
    ],
  },
  { name: 'categories', fields: [{ name: 'name', type: 'String' }] },
  {
    name: 'posts',
    mode: 'schema',
    fields: [
      { name: 'title', type: 'String', required: true },
      { name: 'slug', type: 'String', unique: true },
      { name: 'views', type: 'Number', default: 0 },
      { name: 'publishedAt', type: 'Date' },
      { name: 'tags', type: 'Array', items: { type: 'String' } },
      {
        name: 'meta',
        type: 'Object',
        fields: [
          { name: 'lang', type: 'String' },
          { name: 'words', type: 'Number' },
        ],
      },
      { name: 'author', type: 'Ref', ref: 'users' },
      { name: 'category', type: 'Ref', ref: 'categories' },
    ],
  },
  {
    name: 'notes',
    mode: 'schema',
    fields: [
      { name: 'text', type: 'String', required: true },
      { name: 'userId', type: 'Ref', ref: 'users' },
    ],
    rls: { enabled: true, mode: 'private', ownerField: 'userId' },
  },
  // Readable with the publishable key alone, but pointing into the private-RLS collection.
  {
    name: 'pins',
    mode: 'schema',
    fields: [{ name: 'note', type: 'Ref', ref: 'notes' }],
  },
];

describe('project API documents (GET /api/openapi.json, dashboard /api/projects/{id}/openapi.json)', function () {
  this.timeout(180_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let blog: ProjectFixture;

  before(async () => {
    apps = await startTestApps('project_api_doc');
    const services = apps.dashboard.services;
    blog = await createProjectFixture(services, 'Blog');
    for (const input of COLLECTIONS) {
      await services.collections.create(contextFor({ developer: blog.developer }), blog.project.id, input);
    }
  });
  after(() => apps.close());

  const keyed = (key: string) => apps.public.client.with({ 'x-api-key': key });
  const fetchDoc = async (key = blog.publishableKey) => {
    const res = await keyed(key).get<Doc>('/api/openapi.json');
    expect(res.status).to.equal(200);
    return res;
  };

  it('describes each collection with typed schemas, keys and refusals', async () => {
    const { body: doc, headers } = await fetchDoc(blog.secretKey);
    expect(headers.get('etag')).to.equal(`"${doc.info.version}"`);
    expect(headers.get('cache-control')).to.equal('private, no-cache');
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.servers).to.deep.equal([
      { url: apps.public.deps.config.publicUrl, description: 'The public API.' },
    ]);
    expect(Object.keys(doc.components.securitySchemes)).to.have.members([
      'publishableKey',
      'secretKey',
      'bearerAuth',
    ]);
    expect(doc.paths).to.include.keys(
      '/api/data/posts',
      '/api/data/posts/{id}',
      '/api/data/posts/bulk',
      '/api/data/posts/bulk/delete',
      '/api/data/posts/bulk/restore',
      '/api/data/posts/aggregate',
      '/api/data/posts/{id}/restore',
      '/api/data/categories',
      '/api/userAuth/signup',
    );
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/data/users'))).to.deep.equal([]);

    const { schemas } = doc.components;
    const posts = schemas.posts;
    expect(posts.additionalProperties).to.equal(false);
    expect(posts.required).to.include.members(['_id', 'title', 'views', 'createdAt']);
    expect(posts.properties.views.default).to.equal(0);
    expect(posts.properties.slug['x-unique']).to.equal(true);
    expect(posts.properties.author).to.deep.include({ type: ['string', 'null'], pattern: '^[0-9a-f]{24}$' });
    expect(schemas['posts.Populated'].properties.author).to.deep.equal({
      anyOf: [{ $ref: '#/components/schemas/users.Populated' }, { type: 'null' }],
      description: 'The id of a `users` document.',
    });
    expect(schemas['posts.Create'].required).to.deep.equal(['title']);
    expect(schemas['posts.Create'].properties.views).to.not.have.property('default');
    expect(schemas['posts.Update'].properties).to.have.property('meta.words');
    expect(schemas.categories.additionalProperties).to.equal(true);
    expect(schemas['categories.Create'].additionalProperties).to.equal(true);

    // End users: the password nowhere, private fields only in the user's own view, protected
    // fields not in the bodies end users send.
    expect(schemas.users.properties).to.not.have.property('password');
    expect(schemas.users.properties).to.have.property('phone');
    expect(schemas['users.Populated'].properties).to.not.have.any.keys('password', 'phone');
    expect(schemas['users.Signup'].properties).to.not.have.property('role');
    expect(schemas['users.ProfileUpdate'].properties).to.not.have.any.keys('role', 'email', 'password');
    const signup = doc.paths['/api/userAuth/signup'].post;
    expect(signup.requestBody.content['application/json'].schema.$ref).to.equal(
      '#/components/schemas/users.Signup',
    );

    // Keys: writes without RLS take the secret key only, and say why the publishable key is refused.
    const create = doc.paths['/api/data/posts'].post;
    expect(create.security).to.deep.equal([{ secretKey: [] }]);
    expect(create.responses['403'].description).to.include('PUBLISHABLE_KEY_READ_ONLY');
    expect(doc.paths['/api/data/posts'].get.security).to.deep.equal([
      { publishableKey: [] },
      { secretKey: [] },
    ]);
    const notes = doc.paths['/api/data/notes'];
    expect(notes.get.security).to.deep.equal([{ secretKey: [] }, { publishableKey: [], bearerAuth: [] }]);
    expect(notes.post.security).to.deep.equal([{ secretKey: [] }, { publishableKey: [], bearerAuth: [] }]);
    expect(notes.post.responses['403'].description).to.include('OWNER_MISMATCH');
    expect(notes.get.description).to.include('MISSING_TOKEN');

    // One filter parameter per field and suffix, typed.
    const params = doc.paths['/api/data/posts'].get.parameters as {
      name: string;
      schema: any;
      description: string;
    }[];
    const param = (name: string) => params.find((p) => p.name === name);
    expect(param('views_gte')?.schema).to.deep.equal({ type: 'number' });
    expect(param('title_regex')?.schema).to.deep.equal({ type: 'string', maxLength: 128 });
    expect(param('views_regex')).to.equal(undefined);
    expect(param('filters')).to.equal(undefined);
    expect(param('populate')?.description).to.include('`author` (`users`)');
    const flexible = doc.paths['/api/data/categories'].get.parameters as { name: string }[];
    expect(flexible.map((p) => p.name)).to.include('filters');
  });

  it('serves the publishable key a document naming no private or protected field of users', async () => {
    const { body: doc, text } = await fetchDoc();
    // Performed as an attacker with the publishable key would: look for the field names anywhere.
    // (`role` appears in the published prose about mass assignment; never as a key.)
    for (const name of ['role', 'phone']) expect(text, name).not.to.match(new RegExp(`"${name}"`));
    expect(text).not.to.match(/phone/);
    const { schemas } = doc.components;
    expect(schemas.users.properties).to.include.keys('email', 'createdAt');
    expect(schemas.users.additionalProperties).to.equal(true);
    expect(schemas['users.Populated'].additionalProperties).to.equal(true);
    // phone (private) may still be sent at sign-up: the body is left open rather than wrong.
    expect(schemas['users.Signup'].additionalProperties).to.equal(true);
    const secret = await fetchDoc(blog.secretKey);
    expect(secret.text).to.match(/"phone"/);
    expect(secret.text).to.match(/"role"/);
    expect(secret.headers.get('etag')).to.not.equal((await fetchDoc()).headers.get('etag'));
  });

  it("leaves private-RLS collections out of the publishable key's document", async () => {
    const { body: doc, text } = await fetchDoc();
    // As an attacker holding the public key would look: the collection and its fields, anywhere.
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/api/data/notes'))).to.deep.equal([]);
    expect(doc.components.schemas).not.to.have.any.keys('notes', 'notes.Create', 'notes.Update');
    expect(text).not.to.match(/"text"/);
    expect(JSON.stringify(doc.components.schemas)).not.to.include('#/components/schemas/notes');
    expect(
      doc.components.schemas['pins.Populated'].properties.note.anyOf ?? [
        doc.components.schemas['pins.Populated'].properties.note,
      ],
    ).to.deep.include({ type: 'object', description: 'A document this key alone cannot read.' });
    expect(doc.paths).to.have.any.keys('/api/data/pins', '/api/data/posts');
    expect(doc.info.description).to.include('private row-level security are left out');
    // The secret key's copy and the members' copy list it.
    const secret = await fetchDoc(blog.secretKey);
    expect(secret.body.paths).to.have.property('/api/data/notes');
    expect(secret.body.components.schemas).to.have.property('notes');
  });

  it('serves each key its document, also as ?key=, and a 304 to a matching If-None-Match', async () => {
    const first = await fetchDoc();
    const etag = first.headers.get('etag')!;
    const byQuery = await apps.public.client.get('/api/openapi.json', {
      query: { key: blog.publishableKey },
    });
    expect(byQuery.status).to.equal(200);
    expect(byQuery.text).to.equal(first.text);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await keyed(blog.publishableKey).get('/api/openapi.json', {
        headers: { 'if-none-match': header },
      });
      expect(res.status, header).to.equal(304);
      expect(res.text).to.equal('');
      expect(res.headers.get('etag')).to.equal(etag);
    }
    const stale = await keyed(blog.publishableKey).get('/api/openapi.json', {
      headers: { 'if-none-match': '"stale"' },
    });
    expect(stale.status).to.equal(200);
  });

  it('refuses a request without a valid key (401), a publishable key from a disallowed origin (403) and an unknown parameter (400)', async () => {
    expect((await apps.public.client.get('/api/openapi.json')).status).to.equal(401);
    expect((await keyed('pk_live_nope').get('/api/openapi.json')).status).to.equal(401);
    const guarded = await createProjectFixture(apps.dashboard.services, 'Guarded');
    await apps.dashboard.services.projects.update(guarded.project, {
      settings: { allowedOrigins: ['https://app.example.com'] },
    });
    const res = await keyed(guarded.publishableKey).get('/api/openapi.json', {
      headers: { origin: 'https://evil.example.com' },
    });
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('ORIGIN_NOT_ALLOWED');
    // A query parameter the operation does not take is named in a 400.
    const unknown = await keyed(guarded.publishableKey).get('/api/openapi.json', {
      query: { format: 'yaml' },
    });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.message).to.include('format');
  });

  it('is built once per version of the project and changes when a collection changes', async () => {
    const stats = apps.public.services.projectApi.stats;
    const before = await fetchDoc();
    const builds = stats.builds;
    for (let i = 0; i < 3; i++) await fetchDoc();
    expect(stats.builds, 'requests reuse the built document').to.equal(builds);

    await apps.dashboard.services.collections.update(
      contextFor({ developer: blog.developer }),
      blog.project.id,
      'categories',
      {
        fields: [
          { name: 'name', type: 'String' },
          { name: 'color', type: 'String' },
        ],
      },
    );
    // The public process learns the project's new version from the message bus: the change is
    // seen once the message has arrived, at the latest LOCAL_VERSION_MS later (a 304 until then).
    const conditional = () =>
      keyed(blog.publishableKey).get<Doc>('/api/openapi.json', {
        headers: { 'if-none-match': before.headers.get('etag')! },
      });
    let after = await conditional();
    for (
      const deadline = Date.now() + LOCAL_VERSION_MS + 500;
      after.status === 304 && Date.now() < deadline;
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await conditional();
    }
    expect(after.status).to.equal(200);
    expect(after.headers.get('etag')).to.not.equal(before.headers.get('etag'));
    expect(after.body.components.schemas.categories.properties).to.have.property('color');
    expect(stats.builds).to.equal(builds + 1);
    const again = await keyed(blog.publishableKey).get('/api/openapi.json', {
      headers: { 'if-none-match': after.headers.get('etag')! },
    });
    expect(again.status).to.equal(304);
    expect(stats.builds).to.equal(builds + 1);
  });

  it('serves the document to project members on the dashboard (200, 304), not to others (400, 401, 404)', async () => {
    const publicDoc = await fetchDoc(blog.secretKey);
    const dash = apps.dashboard.client.with({ cookie: blog.cookie });
    const path = `/api/projects/${blog.project.id}/openapi.json`;
    const res = await dash.get<Doc>(path);
    expect(res.status).to.equal(200);
    expect(res.headers.get('etag')).to.equal(publicDoc.headers.get('etag'));
    expect(res.text).to.equal(publicDoc.text);
    const unchanged = await dash.get(path, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(unchanged.status).to.equal(304);
    expect((await apps.dashboard.client.get(path)).status).to.equal(401);
    expect((await dash.get('/api/projects/nope/openapi.json')).status).to.equal(400);
    const stranger = await createProjectFixture(apps.dashboard.services, 'Other');
    const denied = await apps.dashboard.client.with({ cookie: stranger.cookie }).get(path);
    expect(denied.status).to.equal(404);
  });

  it('lints clean, generates a typed client that catches wrong fields at compile time, and that client works', async () => {
    // Generated with the secret key (a build step), so private and protected fields are typed.
    const { body: doc, text } = await fetchDoc(blog.secretKey);
    const workspace = clientWorkspace();
    try {
      const file = workspace.write('project.openapi.json', text);
      const lint = await workspace.lint(file);
      expect(lint.errors, lint.problems.join('\n')).to.equal(0);
      await workspace.generate(doc, 'project-api');
      // Each @ts-expect-error line of the program must be a type error (tsc fails on an unused
      // marker), so loose types (an `any`, an open object) fail this check.
      workspace.write('program.ts', PROGRAM);
      await workspace.typeCheck(['program.ts']);
      const output = await workspace.execute('program.ts', {
        BASE_URL: apps.public.url,
        SECRET_KEY: blog.secretKey,
        PUBLISHABLE_KEY: blog.publishableKey,
      });
      const result = JSON.parse(output.trim().split('\n').pop()!);
      expect(result).to.deep.include({
        signupStatus: 201,
        createStatus: 201,
        title: 'Hello',
        views: 0,
        listTitles: ['Hello'],
        count: 1,
        patchedWords: 3,
        publishableCreateStatus: 403,
        publishableCreateCode: 'PUBLISHABLE_KEY_READ_ONLY',
        noteStatus: 201,
        ownNotes: 1,
        mePhone: '+1 555 0100',
        populatedAuthorHasPhone: false,
      });
      expect(result.noteOwner).to.equal(result.userId);
    } finally {
      workspace.remove();
    }
  });
});
