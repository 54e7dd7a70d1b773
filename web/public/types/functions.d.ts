// Types for hosted functions and hooks (docs/functions.md): what the default export of your module
// receives (`event`, `ctx`) and may answer. Served by the dashboard at /types/functions.d.ts.
//
//   /** @type {import('./functions').Handler<import('./functions').BeforeCreateEvent>} */
//   export default async (event, ctx) => { ... }
//
// or in TypeScript: `const handler: Handler<BeforeCreateEvent> = async (event, ctx) => ...`.

/** Any JSON value: what goes in and out of a function is JSON (dates as ISO strings). */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type TriggerType =
  | 'beforeCreate'
  | 'beforeUpdate'
  | 'beforeDelete'
  | 'afterCreate'
  | 'afterUpdate'
  | 'afterDelete'
  | 'beforeSignUp'
  | 'tokenClaims'
  | 'callable'
  | 'schedule';

/** Who made the request that ran the hook. */
export interface Caller {
  /** The API key the request used; null when no key did (a dashboard test run). */
  key: 'secret' | 'publishable' | null;
  /** The signed-in end user, if any. */
  userId: string | null;
}

/** What every event carries. */
export interface BaseEvent {
  /** Stable for the event (also the `webhook-id` header of an HTTP hook): de-duplicate on it. */
  id: string;
  trigger: TriggerType;
  projectId: string;
  /** Present, and true, on a dashboard test run: nothing the run does is written. */
  test?: true;
}

export interface CollectionEvent extends BaseEvent {
  collection: string;
  caller: Caller;
}

/** A single or bulk create: the client's input, already validated against the schema. */
export interface BeforeCreateEvent extends CollectionEvent {
  trigger: 'beforeCreate';
  operation: 'create' | 'bulkCreate';
  documents: JsonObject[];
}

/** PATCH or PUT of one document (`changes`), or a restore from the trash (`documentIds`). */
export type BeforeUpdateEvent =
  | (CollectionEvent & {
      trigger: 'beforeUpdate';
      operation: 'update';
      documentId: string;
      /** The validated body of the update. */
      changes: JsonObject;
    })
  | (CollectionEvent & {
      trigger: 'beforeUpdate';
      operation: 'restore' | 'bulkRestore';
      documentIds: string[];
    });

/** A move to the trash, single or bulk. */
export interface BeforeDeleteEvent extends CollectionEvent {
  trigger: 'beforeDelete';
  operation: 'trash' | 'bulkTrash';
  documentIds: string[];
}

/**
 * After a change, run by the worker at least once (retried on failure with the same `id`: use it
 * to de-duplicate). `event` names the change (a restore from the trash runs `afterUpdate` with
 * `document.restored`); `document` is the document after it (null after a delete, and when it
 * was over the payload cap, then `truncated` is true: read it by `documentId`).
 */
export interface AfterEvent extends CollectionEvent {
  trigger: 'afterCreate' | 'afterUpdate' | 'afterDelete';
  event: 'document.created' | 'document.updated' | 'document.restored' | 'document.deleted';
  documentId: string;
  /** When the change was written (ISO 8601). */
  timestamp: string;
  document: JsonObject | null;
  truncated?: true;
}

/** Before a sign-up: the client's profile fields (never the password), or a social profile's. */
export interface BeforeSignUpEvent extends BaseEvent {
  trigger: 'beforeSignUp';
  caller: Caller;
  email: string;
  fields: JsonObject;
  /** `password`, or the social provider's name (`google`, `github`). */
  provider: 'password' | 'google' | 'github' | (string & {});
}

/** Whenever an access token is issued (sign-up and log-in are `login`). */
export interface TokenClaimsEvent extends BaseEvent {
  trigger: 'tokenClaims';
  caller: Caller;
  userId: string;
  reason: 'login' | 'refresh';
}

/** `POST /api/functions/{name}`: the JSON body of the call. */
export interface CallableEvent extends BaseEvent {
  trigger: 'callable';
  caller: Caller;
  name: string;
  body: Json;
}

/** A run by the cron expression, with no caller (`ctx.db` has the publishable key's rights). */
export interface ScheduleEvent extends BaseEvent {
  trigger: 'schedule';
  /** The minute of the run (ISO 8601, UTC). */
  scheduledAt: string;
}

export type FunctionEvent =
  | BeforeCreateEvent
  | BeforeUpdateEvent
  | BeforeDeleteEvent
  | AfterEvent
  | BeforeSignUpEvent
  | TokenClaimsEvent
  | CallableEvent
  | ScheduleEvent;

/** A refusal: the client gets `status` (400 or 403; another becomes 403) and code `HOOK_<code>`. */
export interface Refusal {
  refuse: { status: 400 | 403; code: string; message: string };
}

/** What each trigger may answer; `null` (or nothing) lets the request go on unchanged. */
export interface AnswerOf {
  beforeCreate: null | void | Refusal | { document: JsonObject } | { documents: JsonObject[] };
  beforeUpdate: null | void | Refusal | { changes: JsonObject };
  beforeDelete: null | void | Refusal;
  afterCreate: unknown;
  afterUpdate: unknown;
  afterDelete: unknown;
  /** `fields` are merged over the client's and validated like them. */
  beforeSignUp: null | void | Refusal | { fields: JsonObject };
  /** Added under the token's one claim `app`; at most 1 KiB of JSON. */
  tokenClaims: null | void | Refusal | { claims: JsonObject };
  /** The caller gets it as `data` (a refusal answers its status and `HOOK_<code>`). */
  callable: Json | void;
  schedule: unknown;
}

/** A refused or failed ctx.db call rejects with one: the data API's message, status and code. */
export interface DbError extends Error {
  status?: number;
  code?: string;
}

/** The data API's list parameters, as strings (`{ limit: '10', sort: '-createdAt', title: 'Hi' }`). */
export type Query = Record<string, string>;

/**
 * The project's documents, bound to the invoking project and acting with the caller's rights (the
 * secret key's for a privileged function). Reads and writes go through the data API's service:
 * schema, RLS, quotas, events and hooks apply. `users` is refused (403).
 */
export interface Db {
  /** One page of documents (the data API's `limit`, `page`, `sort`, filters). */
  list<T = JsonObject>(collection: string, query?: Query): Promise<T[]>;
  get<T = JsonObject>(collection: string, id: string): Promise<T>;
  count(collection: string, query?: Query): Promise<number>;
  /** Under the data API's stage allowlist. */
  aggregate<T = JsonObject>(collection: string, pipeline: JsonObject[]): Promise<T[]>;
  create<T = JsonObject>(collection: string, body: JsonObject): Promise<T>;
  update<T = JsonObject>(collection: string, id: string, body: JsonObject): Promise<T>;
  /** Moves the document to the trash. */
  delete(collection: string, id: string): Promise<{ id: string; deletedAt: string }>;
}

export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A fetched answer; redirects are answered, not followed. Bodies are text, at most 1 MiB. */
export interface FetchResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Record<string, string>;
  readonly body: string;
  text(): string;
  json<T = Json>(): T;
}

/**
 * `ctx`. The global `console` (log, info, warn, error, debug) writes to the invocation's log too;
 * it is typed by your editor's own lib (DOM or Node), so it is not declared here. There is no
 * require, import, process, Buffer, timers or global fetch in the interpreter.
 */
export interface Ctx {
  db: Db;
  /** https only; restricted hosts refused; a few calls per invocation (the plan's limit). */
  fetch(url: string, init?: FetchInit): Promise<FetchResponse>;
  /** The function's secrets by name (frozen); their values are redacted in its logs. */
  readonly env: Readonly<Record<string, string>>;
  /** The same as console.log: a line in the invocation's log. */
  log(...args: unknown[]): void;
}

/**
 * The default export of a hosted module. The module is evaluated once per warm instance, which
 * may serve several calls of the same version in a row: keep no caller's data in module state.
 */
export type Handler<E extends FunctionEvent = FunctionEvent> = (
  event: E,
  ctx: Ctx,
) => Promise<AnswerOf[E['trigger']]> | AnswerOf[E['trigger']];
