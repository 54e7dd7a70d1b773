// What a service knows about the request it serves, resolved once by the HTTP layer: who calls
// (the principal from the API key, the end-user token or the dashboard session), and the request
// id for logs.
import type { Logger } from '../lib/logger.js';

/**
 * Credentials resolved from the operation's security schemes, one facet per scheme, merged when
 * a requirement combines schemes. Empty for operations without security. The resources that
 * resolve a facet declare it here.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Principal {}

export interface RequestContext {
  readonly requestId: string;
  readonly log: Logger;
  readonly ip: string;
  readonly principal: Principal;
}
