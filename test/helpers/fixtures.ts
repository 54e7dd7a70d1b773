// Fixtures made through the services (fast, no HTTP): a developer with a project and its keys,
// collection definitions, end-user access tokens. Tests of the dashboard endpoints themselves go
// over HTTP instead.
import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/services/index.js';
import type { RequestContext } from '../../src/services/context.js';
import type { CollectionDef, Developer, FieldDef, Project } from '../../src/services/types.js';
import type { CollectionInput } from '../../src/db/collections.js';
import { createLogger } from '../../src/lib/logger.js';
import { SESSION_COOKIE } from '../../src/services/accounts.js';

const log = createLogger('silent');
export const contextFor = (principal: RequestContext['principal'] = {}): RequestContext => ({
  requestId: 'fixture',
  log,
  ip: '127.0.0.1',
  principal,
});

export interface ProjectFixture {
  developer: Developer;
  /** `Cookie` header value of the developer's dashboard session. */
  cookie: string;
  password: string;
  project: Project;
  publishableKey: string;
  secretKey: string;
}

export async function createDeveloper(services: Services, email?: string) {
  const password = 'correct horse battery staple';
  const address = email ?? `dev-${randomBytes(6).toString('hex')}@example.test`;
  const { developer, sessionToken } = await services.accounts.signup(address, password, 'Test Developer');
  return { developer, password, cookie: `${SESSION_COOKIE}=${sessionToken}` };
}

/**
 * The installation's operator, signed up first: the suite's later developers are then ordinary
 * accounts on the plan new accounts get (the operator's own account has no plan limits).
 */
export const createOperator = (services: Services) => createDeveloper(services, 'operator@example.test');

export async function createProjectFixture(
  services: Services,
  name = 'Test project',
): Promise<ProjectFixture> {
  const { developer, password, cookie } = await createDeveloper(services);
  const { project, keys } = await services.projects.create(contextFor({ developer }), name, {});
  return { developer, cookie, password, project, publishableKey: keys.publishable, secretKey: keys.secret };
}

/** The fields every test `posts` collection starts with: a required title, a unique slug, views. */
export const POST_FIELDS: FieldDef[] = [
  { name: 'title', type: 'String', required: true },
  { name: 'slug', type: 'String', unique: true },
  { name: 'views', type: 'Number', default: 0 },
];

/** Registers a collection definition directly (no index creation; see the collections API for that). */
export async function createCollectionFixture(
  services: Services,
  projectId: string,
  input: Partial<CollectionInput> & { name: string },
): Promise<CollectionDef> {
  const def = await services.repos.collections.create(projectId, {
    mode: 'flexible',
    fields: [{ name: 'title', type: 'String' }],
    rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
    ...input,
  });
  if (!def) throw new Error(`collection ${input.name} exists already`);
  return def;
}

export async function userToken(services: Services, projectId: string, userId: string): Promise<string> {
  return (await services.tokens.issue(projectId, userId)).accessToken;
}
