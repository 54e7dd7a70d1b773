// Mocha root hooks. With CHECK_RESPONSE_COVERAGE=1 (set by `npm test` for the full suite), the run
// fails when a documented (operation, status) pair was never exercised by any test; 500 is
// exempt, since no correct request can produce it on purpose.
import { exercised, validatorFor } from './client.js';
import type { HttpRole } from '../../src/app.js';

const EXEMPT = new Set(['500', 'default']);

export const mochaHooks = {
  afterAll() {
    if (process.env.CHECK_RESPONSE_COVERAGE !== '1') return;
    const missing: string[] = [];
    for (const role of ['public', 'dashboard'] as HttpRole[]) {
      const seen = exercised.get(role) ?? new Set();
      for (const operation of validatorFor(role).getOperations()) {
        for (const status of Object.keys(operation.responses ?? {})) {
          if (EXEMPT.has(status)) continue;
          const key = `${operation.operationId} ${status}`;
          if (!seen.has(key)) missing.push(`${role}: ${key}`);
        }
      }
    }
    if (missing.length) {
      throw new Error(`Documented responses never exercised by a test:\n  ${missing.join('\n  ')}`);
    }
  },
};
