// Hooks and functions (docs/functions.md): the management of their records, and what the write
// paths, the callable endpoint and the worker use to run them. Changes mark the project changed,
// so every process's cached hook table follows at once.
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { functionsRepo } from '../../db/functions.js';
import { decrypt, deriveKey, encrypt } from '../../lib/secrets.js';
import { invalidating, type ProjectCache } from '../project-cache.js';
import type { ProjectsService } from '../projects.js';
import { functionsManager } from './manage.js';

export interface FunctionsDeps {
  config: Config;
  platform: Database['platform'];
  cache: ProjectCache;
  projects: ProjectsService;
  collectionNames: (projectId: string) => Promise<string[]>;
}

export function functionServices({ config, platform, cache, projects, collectionNames }: FunctionsDeps) {
  const repo = invalidating(functionsRepo(platform), ['create', 'update', 'delete', 'deleteAll'], cache);
  const key = deriveKey(config.encryptionKey, 'function-secret');
  const manage = functionsManager({
    repo,
    limitsOf: projects.limitsOf,
    collectionNames,
    seal: (secret) => encrypt(key, secret),
    hostRules: { allowHttp: config.webhooks.allowHttp, allowPrivate: config.allowPrivateHosts },
    breakerOf: async () => null,
  });
  projects.onDelete((projectId) => repo.deleteAll(projectId));
  return { manage, repo, open: (sealed: string) => decrypt(key, sealed) };
}

export type FunctionServices = ReturnType<typeof functionServices>;
