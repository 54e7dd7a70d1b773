// Hooks and functions on the dashboard: CRUD, versions and rollback. Members read; admins change.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

type Ops = operations;
/** `failed`: every status of a run that did not go as written (neither ok nor a hook's refusal). */
const STATUS_FILTERS: Record<string, string[]> = { failed: ['error', 'timeout', 'memory', 'crashed'] };

export function functionHandlers({ projects, functions }: Services) {
  const ok = <T>(data: T, message = '') => ({ success: true as const, data, message });

  const listFunctions: Handler<Ops['listFunctions']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: ok({ functions: await functions.manage.list(project) }) };
  };

  const createFunction: Handler<Ops['createFunction']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await functions.manage.create(project, body);
    return { status: 201, body: ok(data, 'Function created') };
  };

  const getFunction: Handler<Ops['getFunction']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: ok({ function: await functions.manage.get(project, params.functionId) }) };
  };

  const updateFunction: Handler<Ops['updateFunction']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await functions.manage.update(project, params.functionId, body);
    return { status: 200, body: ok(data, 'Function saved') };
  };

  const deleteFunction: Handler<Ops['deleteFunction']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    await functions.manage.remove(project, params.functionId);
    return { status: 200, body: ok({}, 'Function deleted') };
  };

  const listFunctionVersions: Handler<Ops['listFunctionVersions']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return {
      status: 200,
      body: ok({ versions: await functions.manage.versions(project, params.functionId) }),
    };
  };

  const activateFunctionVersion: Handler<Ops['activateFunctionVersion']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await functions.manage.activate(project, params.functionId, params.version);
    return { status: 200, body: ok(data, `Version ${params.version} is active`) };
  };

  const listFunctionInvocations: Handler<Ops['listFunctionInvocations']> = async ({ params, query }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    const data = await functions.runs.invocations(
      project,
      params.functionId,
      query.page ?? 1,
      query.limit ?? 20,
      {
        status: query.status ? (STATUS_FILTERS[query.status] ?? [query.status]) : undefined,
        trigger: query.trigger ? [query.trigger] : undefined,
        since: query.since ? new Date(query.since) : undefined,
        until: query.until ? new Date(query.until) : undefined,
      },
    );
    return { status: 200, body: ok(data) };
  };

  const getFunctionInvocationStats: Handler<Ops['getFunctionInvocationStats']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: ok(await functions.runs.stats(project, params.functionId)) };
  };

  const testFunction: Handler<Ops['testFunction']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const outcome = await functions.runs.test(project, params.functionId, body.event);
    return { status: 200, body: ok({ outcome }, 'Test run finished; nothing was written') };
  };

  return {
    listFunctionInvocations,
    getFunctionInvocationStats,
    testFunction,
    listFunctions,
    createFunction,
    getFunction,
    updateFunction,
    deleteFunction,
    listFunctionVersions,
    activateFunctionVersion,
  };
}
