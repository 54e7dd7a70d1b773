// AI provider keys (SERVICE-SPEC "AI provider key", DECISIONS §8): saving a key for a developer
// account or a project (Pro; encrypted at rest; only `hasAiProviderKey` is ever shown), and the
// resolution of the key each AI request runs on: project key, then developer key, then the
// platform key. A stored key counts only while the plan still allows own keys.
import type { AiSettings } from '../../config.js';
import { badRequest, forbidden } from '../../http/errors.js';
import { decrypt, deriveKey, encrypt } from '../../lib/secrets.js';
import type { PlanTable } from '../../lib/plan-table.js';
import type { AiKeysRepo } from '../../db/ai-keys.js';
import type { ProjectCache } from '../project-cache.js';
import type { Developer, PlanLimits, Project } from '../types.js';
import type { KeySource, ResolvedKey } from './types.js';

export const MAX_AI_KEY_LENGTH = 200;

export function aiKeys(
  settings: AiSettings,
  encryptionKey: Buffer,
  repo: AiKeysRepo,
  cache: ProjectCache,
  plans: PlanTable,
) {
  const sealKey = deriveKey(encryptionKey, 'ai-provider-key');
  const proOnly = () =>
    forbidden(
      `Bring Your Own AI Key (${settings.providerName}) is a Pro feature. Please upgrade to continue.`,
      'PRO_FEATURE',
    );

  /** The key as sent, or a 400 naming the rule it breaks. */
  function checkFormat(value: string): string {
    const prefix = settings.keyPrefix;
    const problem = !value.startsWith(prefix)
      ? `it must start with "${prefix}"`
      : value.length > MAX_AI_KEY_LENGTH
        ? `it must be at most ${MAX_AI_KEY_LENGTH} characters`
        : !/^[\x21-\x7e]+$/.test(value)
          ? 'it may contain only printable characters without spaces'
          : undefined;
    if (problem) {
      // The message always states the rule (the spec: invalid, must start with the prefix); the
      // detail names what this key breaks.
      throw badRequest(
        `Invalid ${settings.providerName} API key: it must start with "${prefix}" and be at most ${MAX_AI_KEY_LENGTH} printable characters without spaces`,
        [{ path: 'body.aiProviderKey', message: problem }],
        'INVALID_AI_KEY_FORMAT',
      );
    }
    return value;
  }

  async function save(owner: 'developers' | 'projects', id: string, value: string | null, allowed: boolean) {
    // Clearing is allowed on every plan, so that a downgraded account can remove its key.
    if (value !== null) {
      if (!allowed) throw proOnly();
      checkFormat(value);
    }
    await repo.set(owner, id, value === null ? null : encrypt(sealKey, value));
    return { hasAiProviderKey: value !== null };
  }

  return {
    saveForDeveloper: (developer: Developer, value: string | null) =>
      save('developers', developer.id, value, plans.get(developer.plan).limits.ownAiKey),

    async saveForProject(project: Project, limits: PlanLimits, value: string | null) {
      const result = await save('projects', project.id, value, limits.ownAiKey);
      await cache.changed(project.id);
      return result;
    },

    /** Where `resolve` would take the key from (nothing decrypted), or null when there is none. */
    source(project: Project, limits: PlanLimits, developer: Developer): KeySource | null {
      if (project.hasAiProviderKey && limits.ownAiKey) return 'project';
      if (developer.hasAiProviderKey && plans.get(developer.plan).limits.ownAiKey) return 'developer';
      return settings.platformKey ? 'platform' : null;
    },

    /** The key of one AI request, or undefined when no key is available at all. */
    async resolve(
      project: Project,
      limits: PlanLimits,
      developer: Developer,
    ): Promise<ResolvedKey | undefined> {
      if (project.hasAiProviderKey && limits.ownAiKey) {
        const sealed = await repo.sealed('projects', project.id);
        if (sealed) return { key: decrypt(sealKey, sealed), source: 'project' };
      }
      if (developer.hasAiProviderKey && plans.get(developer.plan).limits.ownAiKey) {
        const sealed = await repo.sealed('developers', developer.id);
        if (sealed) return { key: decrypt(sealKey, sealed), source: 'developer' };
      }
      return settings.platformKey ? { key: settings.platformKey, source: 'platform' } : undefined;
    },
  };
}

export type AiKeys = ReturnType<typeof aiKeys>;
