// Keeps what nearly every public request needs before it touches data (the project of an API key,
// collection definitions) in process memory, and keeps it exact. Each project has a version in the
// shared cache (Redis when configured, so every process sees it), replaced after every change to
// the project or its collections; an entry is used only while the version it was loaded under is
// still current. The new version is also pushed to every process over the cache's message bus, so
// a request normally needs no cache read at all: a process trusts the version it holds for
// LOCAL_VERSION_MS after it last learned it, then reads it again, so a message missed while the
// bus reconnected heals within that time. A rotated key or a changed definition is refused or
// seen by every process as soon as the message arrives (before the change's HTTP answer leaves).
import { randomToken } from '../lib/secrets.js';
import type { Cache } from '../cache/index.js';
import { pushedValues } from './pushed-values.js';

export { LOCAL_VERSION_MS } from './pushed-values.js';

const VERSION_TTL_SECONDS = 365 * 24 * 3600;
/** A backstop in case a version key is lost (Redis eviction): entries are reloaded at least this often. */
const ENTRY_TTL_MS = 60_000;
const MAX_ENTRIES = 20_000;

interface Entry {
  value: unknown;
  projectId: string;
  version: string;
  expiresAt: number;
}

export function projectCache(
  cache: Cache,
  { maxEntries = MAX_ENTRIES, now = Date.now }: { maxEntries?: number; now?: () => number } = {},
) {
  const entries = new Map<string, Entry>();
  /** projectId -> its current version; a new one drops the entries loaded under another. */
  const versions = pushedValues<string>(cache, {
    channel: 'project-version',
    cacheKey: (projectId) => `pv:${projectId}`,
    decode: (text) => text ?? '0',
    encode: (version) => version,
    onSet: (projectId, version) => {
      for (const [key, entry] of entries)
        if (entry.projectId === projectId && entry.version !== version) entries.delete(key);
    },
    maxNames: MAX_ENTRIES,
    now,
  });
  const versionOf = (projectId: string) => versions.get(projectId);

  function store(key: string, entry: Omit<Entry, 'expiresAt'>) {
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(key, { ...entry, expiresAt: now() + ENTRY_TTL_MS });
  }

  async function fresh(key: string): Promise<Entry | undefined> {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now() && (await versionOf(entry.projectId)) === entry.version) return entry;
    entries.delete(key);
    return undefined;
  }

  return {
    /**
     * A value of a known project. The version is read before loading, so a change that lands
     * during the load leaves the entry stale rather than wrong.
     */
    async ofProject<T>(projectId: string, key: string, load: () => Promise<T>): Promise<T> {
      const cacheKey = `${projectId}:${key}`;
      const hit = await fresh(cacheKey);
      if (hit) return hit.value as T;
      const version = await versionOf(projectId);
      const value = await load();
      if (value !== undefined) store(cacheKey, { value, projectId, version });
      return value;
    },

    /**
     * A value whose project is known only once loaded (the project of an API key). On a miss it
     * loads, reads that project's version, and loads again, so the stored value is at least as
     * new as the version it is stored under.
     */
    async find<T>(key: string, load: () => Promise<T | undefined>, projectOf: (value: T) => string) {
      const hit = await fresh(key);
      if (hit) return hit.value as T;
      const first = await load();
      if (first === undefined) return undefined;
      const projectId = projectOf(first);
      const version = await versionOf(projectId);
      const value = await load();
      if (value !== undefined && projectOf(value) === projectId) store(key, { value, projectId, version });
      return value;
    },

    /** Called after a change to a project or its collections has been written. */
    async changed(projectId: string): Promise<void> {
      await versions.set(projectId, randomToken(12), VERSION_TTL_SECONDS);
    },
  };
}

export type ProjectCache = ReturnType<typeof projectCache>;

/**
 * Wraps a repository so that the named methods, all taking the project id first, mark the
 * project changed once they have written.
 */
export function invalidating<R extends object>(repo: R, methods: (keyof R)[], cache: ProjectCache): R {
  const wrapped = { ...repo } as Record<keyof R, unknown>;
  for (const name of methods) {
    const method = repo[name] as (projectId: string, ...rest: unknown[]) => Promise<unknown>;
    wrapped[name] = async (projectId: string, ...rest: unknown[]) => {
      const result = await method(projectId, ...rest);
      await cache.changed(projectId);
      return result;
    };
  }
  return wrapped as R;
}
