// Handler types derived from the generated OpenAPI types: a handler gets the validated, coerced
// input of its operation and a RequestContext, and returns a status and body the spec allows.
// Handlers never see the Koa context; src/http/respond.ts writes the result.
import type { Readable } from 'node:stream';
import type { RequestContext, Principal } from '../services/context.js';
import type { Project } from '../services/types.js';

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : undefined;
/** A response body that is not JSON (a file): bytes or a stream, typed by a Content-Type header. */
export type BinaryBody = Uint8Array | Readable;
type ResponseContent<T> = T extends { content: { 'application/json': infer B } }
  ? B
  : T extends { content: object }
    ? BinaryBody
    : undefined;
type Params<O, In extends string> = O extends { parameters: { [K in In]?: infer P } }
  ? [P] extends [never] | [undefined]
    ? Record<string, never>
    : NonNullable<P>
  : Record<string, never>;

export interface HandlerInput<O> {
  params: Params<O, 'path'>;
  query: Params<O, 'query'>;
  body: O extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : undefined;
  headers: Record<string, string | string[] | undefined>;
  cookies: { get(name: string): string | undefined };
  /** The request body stream; unread for raw uploads (RAW_BODY_PATHS) and any body that is not JSON. */
  rawBody: Readable;
}

export interface CookieToSet {
  name: string;
  value: string | null;
  maxAgeMs?: number;
  path?: string;
}

type Responses<O> = O extends { responses: infer R } ? R : never;

export type HandlerResult<O> = {
  [S in keyof Responses<O>]: {
    status: S extends number ? S : never;
    body: ResponseContent<Responses<O>[S]>;
    headers?: Record<string, string>;
    cookies?: CookieToSet[];
  };
}[keyof Responses<O>];

export type Handler<O> = (input: HandlerInput<O>, ctx: RequestContext) => Promise<HandlerResult<O>>;

/** One handler per operationId of an API document. */
export type HandlerMap<Ops> = { [K in keyof Ops]: Handler<Ops[K]> };

/** Untyped view used by the router, which cannot know each operation's types. */
export type AnyHandler = (
  input: HandlerInput<unknown>,
  ctx: RequestContext,
) => Promise<{
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  cookies?: CookieToSet[];
}>;

export interface SecurityInput {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** The `key` query parameter, already removed from the query the handler sees. */
  queryKey: string | undefined;
  /** The `access_token` query parameter, taken (and removed) only on operations that accept it. */
  queryToken: string | undefined;
  cookies: { get(name: string): string | undefined };
  ip: string;
  /** The operation is answered while a restore replaces the project's data (`x-during-restore`). */
  duringRestore?: boolean;
  /**
   * Set by the API-key resolver once the key names a project, kept even when a later check
   * fails: CORS grants credentials by that project's origins, errors included.
   */
  keyProject?: Project;
}

/**
 * Resolves one security scheme of the spec. Returns undefined when the request does not carry
 * that credential at all; throws an ApiError when it carries an invalid one. `resolved` holds the
 * facets of the schemes before it in the same requirement (a Bearer token needs the API key's
 * project).
 */
export type SecurityResolver = (input: SecurityInput, resolved: Principal) => Promise<Principal | undefined>;
