// A new project, ready for end-user sign-in on request (issue 44, docs/end-users.md): with
// `endUserSignIn` it is created with the `users` collection sign-in needs, as PocketBase and
// Supabase ship their projects, so a first sign-up with the publishable key succeeds at once. The
// dashboard's form asks for it by default; the API keeps the spec's bare project unless asked.
// Both are made or neither: a project whose collection could not be made is deleted again.
import type { CollectionsService } from './collections.js';
import type { RequestContext } from './context.js';
import type { ProjectsService } from './projects.js';
import type { ProjectSettings } from './types.js';

/**
 * The spec's fixed contract (email required and unique, password required) and a display name.
 * Also what the dashboard's one click makes on an existing project (collections.createUsers).
 */
export const USERS_COLLECTION = {
  name: 'users',
  mode: 'schema',
  fields: [
    { name: 'email', type: 'String', required: true, unique: true },
    { name: 'password', type: 'String', required: true },
    { name: 'name', type: 'String' },
  ],
} as const;

export interface NewProject {
  name: string;
  settings?: Partial<ProjectSettings>;
  endUserSignIn?: boolean;
}

export async function createProject(
  { projects, collections }: { projects: ProjectsService; collections: CollectionsService },
  ctx: RequestContext,
  { name, settings = {}, endUserSignIn = false }: NewProject,
) {
  const created = await projects.create(ctx, name, settings);
  if (!endUserSignIn) return created;
  try {
    await collections.createInNew(created.project, structuredClone(USERS_COLLECTION));
  } catch (err) {
    await projects.delete(created.project);
    throw err;
  }
  return created;
}
