import { expect } from 'chai';
import { buildRouter, handlerParity } from '../../src/http/router.js';
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
