// Where the end user's session is kept between page loads: localStorage in a browser, memory
// elsewhere, or an adapter of the app's own (AsyncStorage in React Native, a cookie on a server).

export interface SessionStore {
  get(key: string): string | null | Promise<string | null>;
  set(key: string, value: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}

export function memoryStore(): SessionStore {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => void values.set(key, value),
    remove: (key) => void values.delete(key),
  };
}

/** The browser's localStorage (shared by the tabs of one origin). */
export function localStorageStore(storage: Storage = globalThis.localStorage): SessionStore {
  return {
    get: (key) => storage.getItem(key),
    set: (key, value) => storage.setItem(key, value),
    remove: (key) => storage.removeItem(key),
  };
}

/** localStorage where there is one, memory elsewhere (Node, workers). */
export function defaultStore(): SessionStore {
  try {
    if (typeof globalThis.localStorage !== 'undefined') return localStorageStore();
  } catch {
    // A sandboxed frame throws on access.
  }
  return memoryStore();
}
