// The public API's functions: calling a callable function (either key, per its access), and the
// dashboard's function operations for scripts with the secret key, by name.
import type { operations } from '../../generated/public.js';
import { notFound } from '../http/errors.js';
import type { Handler } from '../http/types.js';
import type { RequestContext } from '../services/context.js';
import { secretKeyProject } from '../services/collections.js';
import type { Services } from '../services/index.js';

type Ops = operations;

export function publicFunctionHandlers({ functions }: Services) {
  const ok = <T>(data: T, message = '') => ({ success: true as const, data, message });
  /** The secret key's project and the id of its function `name` (404 when none). */
  async function named(ctx: RequestContext, name: string) {
    const project = secretKeyProject(ctx);
    const fn = await functions.repo.findByName(project.id, name);
    if (!fn) throw notFound('Function not found', 'FUNCTION_NOT_FOUND');
    return { project, id: fn.id };
  }

  const callFunction: Handler<Ops['callFunction']> = async ({ params, body }, ctx) => ({
    status: 200,
    body: ok(await functions.callable.call(ctx, params.name, body)),
  });

  const listProjectFunctions: Handler<Ops['listProjectFunctions']> = async (_input, ctx) => ({
    status: 200,
    body: ok({ functions: await functions.manage.list(secretKeyProject(ctx)) }),
  });

  const createProjectFunction: Handler<Ops['createProjectFunction']> = async ({ body }, ctx) => ({
    status: 201,
    body: ok(await functions.manage.create(secretKeyProject(ctx), body), 'Function created'),
  });

  const getProjectFunction: Handler<Ops['getProjectFunction']> = async ({ params }, ctx) => {
    const { project, id } = await named(ctx, params.name);
    return { status: 200, body: ok({ function: await functions.manage.get(project, id) }) };
  };

  const updateProjectFunction: Handler<Ops['updateProjectFunction']> = async ({ params, body }, ctx) => {
    const { project, id } = await named(ctx, params.name);
    return { status: 200, body: ok(await functions.manage.update(project, id, body), 'Function saved') };
  };

  const deleteProjectFunction: Handler<Ops['deleteProjectFunction']> = async ({ params }, ctx) => {
    const { project, id } = await named(ctx, params.name);
    await functions.manage.remove(project, id);
    return { status: 200, body: ok({}, 'Function deleted') };
  };

  return {
    callFunction,
    listProjectFunctions,
    createProjectFunction,
    getProjectFunction,
    updateProjectFunction,
    deleteProjectFunction,
  };
}
