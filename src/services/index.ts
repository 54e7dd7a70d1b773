// Builds every service once from the process dependencies.
import type { Deps } from '../deps.js';
import { healthService } from './health.js';

export function createServices(deps: Deps) {
  return {
    health: healthService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
