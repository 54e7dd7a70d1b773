import { expect } from 'chai';
import { buildRouter, handlerParity } from '../../src/http/router.js';
import type { Context, Next } from 'koa';
import { owningLayers, shadowingTemplates } from '../../src/http/route-owner.js';
import { RouteGroups } from '../../src/http/route-groups.js';
import { loadSpec } from '../../src/app.js';
import { publicHandlers, dashboardHandlers } from '../../src/api/index.js';
import { createLogger } from '../../src/lib/logger.js';
import type { Services } from '../../src/services/index.js';

const services = {} as Services; // handlers are only listed here, never called
const log = createLogger('silent');

describe('operation/handler parity', () => {
  for (const [role, handlers] of [
    ['public', publicHandlers(services)],
    ['dashboard', dashboardHandlers(services)],
  ] as const) {
    it(`every ${role} operation has a handler and every handler an operation`, () => {
      expect(handlerParity(loadSpec(role), handlers)).to.deep.equal({
        missingHandlers: [],
        unknownHandlers: [],
      });
    });
  }

  it('catches a missing handler, and the router refuses to start', () => {
    const { getHealth: _removed, ...rest } = publicHandlers(services);
    const spec = loadSpec('public');
    expect(handlerParity(spec, rest).missingHandlers).to.deep.equal(['getHealth']);
    expect(() => buildRouter({ spec, handlers: rest, security: {}, log })).to.throw(
      /without handler \[getHealth\]/,
    );
  });

  it('catches a handler with no operation', () => {
    const handlers = {
      ...publicHandlers(services),
      deleteEverything: async () => ({ status: 200, body: {} }),
    };
    const spec = loadSpec('public');
    expect(handlerParity(spec, handlers).unknownHandlers).to.deep.equal(['deleteEverything']);
    expect(() => buildRouter({ spec, handlers, security: {}, log })).to.throw(
      /without operation \[deleteEverything\]/,
    );
  });
});

describe('route ownership (a literal segment wins over a parameter)', () => {
  const templates = [
    '/api/data/{collectionName}',
    '/api/data/{collectionName}/bulk',
    '/api/data/{collectionName}/aggregate',
    '/api/data/{collectionName}/{id}',
    '/api/data/{collectionName}/{id}/restore',
  ];

  it('gives a parameter route the templates that take some of its paths', () => {
    const shadows = shadowingTemplates('/api/data/{collectionName}/{id}', templates);
    expect(
      shadows.map((r) => ['/api/data/posts/bulk', '/api/data/posts/aggregate'].some((p) => r.test(p))),
    ).to.deep.equal([true, true]);
    expect(shadows.some((r) => r.test('/api/data/posts/65f1c2a4b7e8d90012345678'))).to.equal(false);
    expect(shadowingTemplates('/api/data/{collectionName}/bulk', templates)).to.deep.equal([]);
    expect(shadowingTemplates('/api/data/{collectionName}/{id}/restore', templates)).to.deep.equal([]);
  });

  it('keeps the matched routes with the fewest parameters', () => {
    const bulk = { paramNames: ['collectionName'], methods: ['POST'] };
    const byId = { paramNames: ['collectionName', 'id'], methods: ['HEAD', 'GET', 'PUT', 'PATCH', 'DELETE'] };
    expect(owningLayers([byId, bulk])).to.deep.equal([bulk]);
    expect(owningLayers([byId])).to.deep.equal([byId]);
  });
});

describe('route groups (a request is matched within its first two segments)', () => {
  async function dispatch(groups: RouteGroups, path: string): Promise<string[]> {
    const seen: string[] = [];
    const ctx = { path, method: 'GET', state: {}, request: {}, seen } as unknown as Context;
    await groups.routes()(ctx, async () => void seen.push('next'));
    return seen;
  }
  const groups = new RouteGroups();
  const route =
    (name: string, passOn = false) =>
    async (ctx: Context, next: Next) => {
      (ctx as unknown as { seen: string[] }).seen.push(name);
      if (passOn) await next();
    };
  groups.of('/api/data/{collectionName}').get('/api/data/:collectionName', route('list'));
  groups.of('/api/health').get('/api/health', route('health'));
  groups.of('/files/{projectId}/{path}').get('/files/:projectId/:path', route('file'));
  groups.of('/files/own/{path}').get('/files/own/:path', route('own', true));

  it('finds the route of a literal group, a parameter group and a one-segment path', async () => {
    expect(await dispatch(groups, '/api/data/posts')).to.deep.equal(['list']);
    expect(await dispatch(groups, '/api/health')).to.deep.equal(['health']);
    expect(await dispatch(groups, '/files/p1/a.png')).to.deep.equal(['file']);
  });

  it('passes from a literal group to the parameter group, then on down the chain', async () => {
    expect(await dispatch(groups, '/files/own/a.png')).to.deep.equal(['own', 'file']);
    expect(await dispatch(groups, '/api/nothing/here')).to.deep.equal(['next']);
    expect(await dispatch(groups, '/')).to.deep.equal(['next']);
    expect(await dispatch(groups, '/api/data')).to.deep.equal(['next']);
  });
});
