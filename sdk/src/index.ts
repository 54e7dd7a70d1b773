// mongobaas-js: the client of a mongobaas project. Typed from the project's own schema when given
// the types `mongobaas gen types` writes (`createClient<components['schemas']>(...)`), untyped
// otherwise.
import { Auth, type AuthUser } from './auth.js';
import { Collection } from './data.js';
import { subscribe, type SubscribeOptions, type Subscription } from './realtime.js';
import { defaultStore, type SessionStore } from './session-store.js';
import { Storage } from './storage.js';
import { Transport, type RetryOptions } from './transport.js';

export { MongobaasError, type ErrorDetail } from './errors.js';
export { memoryStore, localStorageStore, type SessionStore } from './session-store.js';
export type { Session, AuthUser, AuthEvent, AuthListener } from './auth.js';
export type { Collection, ListOptions, ListResult, Pagination, BulkResult } from './data.js';
export type { Filter, Condition, SortKey } from './filters.js';
export type { ChangeEvent, ChangeType, SubscribeOptions, Subscription } from './realtime.js';
export type { StoredFile, UploadOptions } from './storage.js';
export type { RetryOptions } from './transport.js';

// What `mongobaas gen types` writes: components['schemas'] of the project's document, with
// `<c>` (a stored document), `<c>.Create` and `<c>.Update` per collection, and `users`.
type AnySchemas = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The collections of the schema: names that have a `.Create` shape. */
export type CollectionName<S> = {
  [K in keyof S & string]: `${K}.Create` extends keyof S ? K : never;
}[keyof S & string];
type DocumentOf<S, C extends string> = C extends keyof S ? S[C] : Record<string, unknown>;
type CreateOf<S, C extends string> = `${C}.Create` extends keyof S
  ? S[`${C}.Create`]
  : Record<string, unknown>;
type UpdateOf<S, C extends string> = `${C}.Update` extends keyof S
  ? S[`${C}.Update`]
  : Record<string, unknown>;
type UserOf<S> = 'users' extends keyof S ? (S['users'] extends AuthUser ? S['users'] : AuthUser) : AuthUser;

export interface ClientOptions {
  /** Where the end user's session is kept (default: localStorage in a browser, memory elsewhere). */
  store?: SessionStore;
  /** The store's key for the session (default: one per service URL and API key). */
  storageKey?: string;
  /** Retry a 429 or 503 after its `Retry-After` (off by default: a request fails at once). */
  retry?: RetryOptions | false;
  /** Another fetch (a test's, or one with a proxy agent). */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

export class MongobaasClient<S = AnySchemas, F extends Record<string, unknown> = Record<string, unknown>> {
  readonly auth: Auth<UserOf<S>>;
  readonly storage: Storage;
  readonly functions: {
    /** Runs a callable function with a JSON body; resolves to its answer. */
    call<N extends keyof F & string>(name: N, body?: object): Promise<F[N]>;
  };
  private readonly http: Transport;

  constructor(url: string, key: string, options: ClientOptions = {}) {
    this.http = new Transport({
      url,
      key,
      fetch: options.fetch,
      retry: options.retry,
      headers: options.headers,
    });
    this.auth = new Auth<UserOf<S>>(this.http, options.store ?? defaultStore(), options.storageKey);
    this.http.tokens = this.auth;
    this.storage = new Storage(this.http);
    this.functions = {
      call: (name, body) =>
        this.http.data('POST', `/api/functions/${encodeURIComponent(name)}`, { body: body ?? {} }),
    };
  }

  /** A collection's documents; its name and fields checked against the schema when typed. */
  collection<C extends CollectionName<S>>(
    name: C,
  ): Collection<DocumentOf<S, C>, CreateOf<S, C>, UpdateOf<S, C>> {
    return new Collection(this.http, name);
  }

  /** The collection's events as they happen; `close()` ends the subscription. */
  subscribe<C extends CollectionName<S>>(name: C, options: SubscribeOptions<DocumentOf<S, C>>): Subscription {
    return subscribe(this.http, name, options);
  }
}

/** The client of one project: its service URL and one of its API keys (publishable in a browser). */
export function createClient<S = AnySchemas, F extends Record<string, unknown> = Record<string, unknown>>(
  url: string,
  key: string,
  options?: ClientOptions,
): MongobaasClient<S, F> {
  return new MongobaasClient<S, F>(url, key, options);
}
