// Which routes own a path that several templates match. OpenAPI's rule: a literal segment wins
// over a parameter, so `/api/data/posts/bulk` is `/api/data/{collectionName}/bulk` and not also
// `/api/data/{collectionName}/{id}` with id "bulk". The router, the 405 fallback and the OPTIONS
// answer all follow it, so `Allow` lists only the methods of the path the request names.

/** A matched route as @koa/router reports it. */
interface RouteLayer {
  paramNames: unknown[];
  methods: string[];
}

/** The layers among `layers` (all matching one path) that own it: those with the fewest parameters. */
export function owningLayers<L extends RouteLayer>(layers: L[]): L[] {
  let fewest = Infinity;
  for (const layer of layers) fewest = Math.min(fewest, layer.paramNames.length);
  return layers.filter((layer) => layer.paramNames.length === fewest);
}

const segments = (template: string) => template.split('/');
const isParam = (segment: string) => segment.startsWith('{');

/**
 * Regular expressions of the templates among `templates` that take requests from `template`:
 * those with fewer parameters that some path matches together with it. Worked out at start; most
 * routes have none, and a route that has some tests them before it handles a request.
 */
export function shadowingTemplates(template: string, templates: string[]): RegExp[] {
  const own = segments(template);
  const params = own.filter(isParam).length;
  return templates
    .filter((other) => {
      const theirs = segments(other);
      if (other === template || theirs.length !== own.length) return false;
      if (theirs.filter(isParam).length >= params) return false;
      return theirs.every((s, i) => s === own[i] || isParam(s) || isParam(own[i]!));
    })
    .map(
      (other) =>
        new RegExp(
          `^${segments(other)
            .map((s) => (isParam(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
            .join('/')}/?$`,
        ),
    );
}
