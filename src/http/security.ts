// Resolvers for the security schemes named in the specs. Each turns one kind of credential into
// a facet of the request's Principal; the resources that own a credential fill them in.
import type { Services } from '../services/index.js';
import type { SecurityResolver } from './types.js';

export function securityResolvers(_services: Services): Record<string, SecurityResolver> {
  return {};
}
