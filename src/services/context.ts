// What a service knows about the request it serves, resolved once by the HTTP layer: who calls
// (the API key's project, the end-user token, the dashboard session), and the request id for logs.
import type { Logger } from '../lib/logger.js';
import type { Developer, KeyKind, Project } from './types.js';
import type { AccessTokenGrant } from './access-tokens.js';

/**
 * Credentials resolved from the operation's security schemes, one facet per scheme, merged when
 * a requirement combines schemes (API key + Bearer). Empty for operations without security.
 */
export interface Principal {
  /** From the `baas_session` cookie or a personal access token (dashboard). */
  developer?: Developer;
  /** From `Authorization: Bearer mbp_...` (dashboard): what the token may reach. */
  accessToken?: AccessTokenGrant;
  /** From `x-api-key` or `?key=` (public API). */
  project?: Project;
  keyKind?: KeyKind;
  /** From `Authorization: Bearer <accessToken>`; verified against the key's project. */
  endUser?: {
    id: string;
    projectId: string;
    /** Token times in seconds since the epoch (a realtime stream ends at expiry or revocation). */
    issuedAt?: number;
    expiresAt?: number;
  };
  /** From `x-internal-secret`: the dashboard service calling the public one. */
  internal?: true;
}

export interface RequestContext {
  readonly requestId: string;
  readonly log: Logger;
  readonly ip: string;
  readonly principal: Principal;
  /** The HTTP request served (the functions' invocation log names it); absent off a request. */
  readonly request?: { readonly method: string; readonly path: string };
  /**
   * Set on the context of a hosted function's ctx.db calls: how deep in functions this write is
   * (1: a function run by a client's request made it). Functions run by such a write are one
   * deeper; past MAX_FUNCTION_DEPTH (src/services/functions/host.ts) they cannot write.
   */
  readonly functionDepth?: number;
}
