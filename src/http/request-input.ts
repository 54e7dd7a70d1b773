// Request validation on the hot path: openapi-backend's compiled validators (the schemas it builds
// from each operation, compiled once by ajv) run over the request as Koa has already parsed it.
// openapi-backend's own `validateRequest` parses the request again first, and per request it
// deep-clones the query, serialises it back to a string, copies the headers, parses every cookie
// and compiles the operation's path template anew; the router here already has the path
// parameters (@koa/router, decoded) and the query, so only what the validators may change
// (coercion writes into the path and query objects) is copied, and what each operation needs is
// worked out once at start.
import type { Context } from 'koa';
import type { ErrorObject } from 'ajv';
import type { OpenAPIBackend, Operation } from 'openapi-backend';

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  schema?: { type?: string };
  content?: Record<string, unknown>;
  explode?: boolean;
}

export interface ValidatedInput {
  /** Path parameters, coerced to their schema types. */
  params: Record<string, unknown>;
  /** Query parameters, coerced to their schema types. */
  query: Record<string, unknown>;
  /** The validators' errors; null when the request is valid. */
  errors: ErrorObject[] | null;
}

const mediaType = (value: string) => value.split(';')[0]!.trim().toLowerCase();

/**
 * The validation of one operation. Query parameters with JSON content or `explode: false` would
 * need openapi-backend's decoding step; the documents use neither, and a start-up error says so
 * if one ever does.
 */
export function requestValidator(api: OpenAPIBackend, operation: Operation) {
  const operationId = operation.operationId!;
  const parameters = (operation.parameters ?? []) as Parameter[];
  const unsupported = parameters.find((p) => p.in === 'query' && (p.content || p.explode === false));
  if (unsupported) {
    throw new Error(
      `${operationId}: query parameter ${unsupported.name} uses content or explode: false, which the router does not decode`,
    );
  }
  /** A single value of an array parameter is a one-element array (as openapi-backend does). */
  const arrayQuery = parameters
    .filter((p) => p.in === 'query' && p.schema?.type === 'array')
    .map((p) => p.name);
  const cookieNames = parameters.filter((p) => p.in === 'cookie').map((p) => p.name);
  // Media types besides JSON that the operation takes as a body its handler reads as a stream (a
  // collection import): koa-body leaves them unread, and the JSON body's validator (openapi-backend
  // builds it first) does not apply to them.
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  const streamedTypes =
    'application/json' in content ? Object.keys(content).filter((t) => t !== 'application/json') : [];
  /** Node's headers are lower-case already; they are copied only when coercion could write into them. */
  const coercedHeaders = parameters.some(
    (p) => p.in === 'header' && (p.schema?.type ?? 'string') !== 'string',
  );
  const noCookies = Object.freeze({});

  return (ctx: Context, query: Record<string, unknown>): ValidatedInput => {
    // Compiled on the operation's first request (openapi-backend's `quick` start), then kept.
    const validators = api.validator.getRequestValidatorsForOperation(operationId) ?? [];
    const input: Record<string, unknown> = {
      path: { ...ctx.params },
      query: { ...query },
      header: coercedHeaders ? { ...ctx.headers } : ctx.headers,
      cookie: noCookies,
    };
    const parsedQuery = input.query as Record<string, unknown>;
    for (const name of arrayQuery) {
      if (typeof parsedQuery[name] === 'string') parsedQuery[name] = [parsedQuery[name]];
    }
    if (cookieNames.length) {
      const cookies: Record<string, string> = {};
      for (const name of cookieNames) {
        const value = ctx.cookies.get(name);
        if (value !== undefined) cookies[name] = value;
      }
      input.cookie = cookies;
    }
    const body = (ctx.request as { body?: unknown }).body;
    const contentType = ctx.headers['content-type'];
    if (
      typeof body === 'object' ||
      (contentType !== undefined &&
        (contentType === 'application/json' || mediaType(contentType) === 'application/json'))
    ) {
      input.requestBody = body;
    }
    let errors: ErrorObject[] | null = null;
    const streamed =
      streamedTypes.length > 0 && contentType !== undefined && streamedTypes.includes(mediaType(contentType));
    for (let i = streamed ? 1 : 0; i < validators.length; i++) {
      const validate = validators[i]!;
      validate(input);
      if (validate.errors) (errors ??= []).push(...validate.errors);
    }
    return { params: input.path as Record<string, unknown>, query: parsedQuery, errors };
  };
}
