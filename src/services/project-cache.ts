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
  /** The value as a settled promise, made once: a hit costs neither an allocation nor an async call. */
  settled: Promise<unknown>;
  projectId: string;
  version: string;
  expiresAt: number;
}

export function projectCache(
  cache: Cache,
  { maxEntries = MAX_ENTRIES, now = Date.now }: { maxEntries?: number; now?: () => number } = {},
) {
  /** projectId -> key -> entry: a project's entries are found (and dropped) without a scan of all. */
  const byProject = new Map<string, Map<string, Entry>>();
  /** Values found before their project is known (API keys): key -> entry. */
  const unowned = new Map<string, Entry>();
  let size = 0;
  /** projectId -> its current version; a new one drops the entries loaded under another. */
  const versions = pushedValues<string>(cache, {
    channel: 'project-version',
    cacheKey: (projectId) => `pv:${projectId}`,
    decode: (text) => text ?? '0',
    encode: (version) => version,
    onSet: (projectId, version) => {
      const entries = byProject.get(projectId);
      if (entries) for (const [key, entry] of entries) if (entry.version !== version) remove(entries, key);
      for (const [key, entry] of unowned)
        if (entry.projectId === projectId && entry.version !== version) remove(unowned, key);
    },
    maxNames: MAX_ENTRIES,
    now,
  });
  const versionOf = (projectId: string) => versions.get(projectId);

  /** Drops one entry, and the map of its project once that is empty. */
  function remove(entries: Map<string, Entry>, key: string) {
    const entry = entries.get(key);
    if (!entry || !entries.delete(key)) return;
    size--;
    if (entries.size === 0 && byProject.get(entry.projectId) === entries) byProject.delete(entry.projectId);
  }

  /**
   * Makes room: the oldest key's entry while keys hold at least half of the entries, else the
   * entries of the project first cached.
   */
  function evict() {
    const oldest = byProject.keys().next();
    if (unowned.size * 2 >= size || oldest.done) {
      remove(unowned, unowned.keys().next().value!);
      return;
    }
    size -= byProject.get(oldest.value)!.size;
    byProject.delete(oldest.value);
  }

  /** Stores a value of a project, under its key in the project's map or, `unowned`, in the map of keys. */
  function store(key: string, value: unknown, projectId: string, version: string, unownedKey = false) {
    while (size >= maxEntries && size > 0) evict();
    const entries = unownedKey ? unowned : entriesOf(projectId);
    if (!entries.has(key)) size++;
    entries.set(key, {
      value,
      settled: Promise.resolve(value),
      projectId,
      version,
      expiresAt: now() + ENTRY_TTL_MS,
    });
  }

  /**
   * The entry of `key` when it may be used as it is: loaded under the version this process knows
   * to be current and not older than the backstop. Undefined when it is missing or stale (dropped
   * then) and when the version must first be read from the cache (`fresh`).
   */
  function usable(entries: Map<string, Entry> | undefined, key: string): Entry | 'ask' | undefined {
    const entry = entries?.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now()) {
      const version = versions.peek(entry.projectId);
      if (version === undefined) return 'ask';
      if (version === entry.version) return entry;
    }
    remove(entries!, key);
    return undefined;
  }

  /** As `usable`, reading the version from the cache when this process may not trust its own. */
  async function fresh(entries: Map<string, Entry> | undefined, key: string): Promise<Entry | undefined> {
    const entry = entries?.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now() && (await versionOf(entry.projectId)) === entry.version) return entry;
    remove(entries!, key);
    return undefined;
  }

  function entriesOf(projectId: string): Map<string, Entry> {
    let entries = byProject.get(projectId);
    if (!entries) byProject.set(projectId, (entries = new Map()));
    return entries;
  }

  async function loadOfProject<T>(projectId: string, key: string, load: () => Promise<T>): Promise<T> {
    const hit = await fresh(byProject.get(projectId), key);
    if (hit) return hit.value as T;
    const version = await versionOf(projectId);
    const value = await load();
    if (value !== undefined) store(key, value, projectId, version);
    return value;
  }

  async function loadFound<T>(
    key: string,
    load: () => Promise<T | undefined>,
    projectOf: (value: T) => string,
  ) {
    const hit = await fresh(unowned, key);
    if (hit) return hit.value as T;
    const first = await load();
    if (first === undefined) return undefined;
    const projectId = projectOf(first);
    const version = await versionOf(projectId);
    const value = await load();
    if (value !== undefined && projectOf(value) === projectId) store(key, value, projectId, version, true);
    return value;
  }

  return {
    /**
     * A value of a known project. The version is read before loading, so a change that lands
     * during the load leaves the entry stale rather than wrong. A hit under a version this process
     * trusts answers with the entry's settled promise, without entering an async function.
     */
    ofProject<T>(projectId: string, key: string, load: () => Promise<T>): Promise<T> {
      const hit = usable(byProject.get(projectId), key);
      if (hit && hit !== 'ask') return hit.settled as Promise<T>;
      return loadOfProject(projectId, key, load);
    },

    /**
     * A value whose project is known only once loaded (the project of an API key). On a miss it
     * loads, reads that project's version, and loads again, so the stored value is at least as
     * new as the version it is stored under.
     */
    find<T>(
      key: string,
      load: () => Promise<T | undefined>,
      projectOf: (value: T) => string,
    ): Promise<T | undefined> {
      const hit = usable(unowned, key);
      if (hit && hit !== 'ask') return hit.settled as Promise<T>;
      return loadFound(key, load, projectOf);
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
