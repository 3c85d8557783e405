import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';
import { MAX_PARAM_LENGTH, sendError } from '../errors/error-handler.ts';
import { Errors } from '../errors/errors.ts';

/** The methods a 405 may list; OPTIONS is the CORS preflight every path answers. */
const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * What the router finds no route for: a known path asked with a method it does not serve is a 405
 * `METHOD_NOT_ALLOWED` with `Allow` (RFC 9110 15.5.6), any other path a 404; both in the envelope.
 * The routes are matched as Fastify matches them (find-my-way, the same parameter limit).
 */
export function registerNotFound(app: FastifyInstance) {
  const routes = FindMyWay({ ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH });
  const seen = new Set<string>();
  app.addHook('onRoute', (route) => {
    // A catch-all (CORS preflights at /*, RESO's OData 404 at /v1/reso/*) serves no path of its own:
    // what a path allows is what its own routes serve, and a path no route serves is a 404.
    if (route.url.endsWith('*')) return;
    for (const method of [route.method].flat() as HTTPMethod[]) {
      if (!METHODS.includes(method) || seen.has(`${method} ${route.url}`)) continue;
      seen.add(`${method} ${route.url}`);
      routes.on(method, route.url, () => undefined);
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const allowed = METHODS.filter((method) => routes.find(method, path) !== null);
    // A route of this very method that found nothing to serve (a missing static file) is a 404.
    const error =
      allowed.length > 0 && !allowed.includes(request.method as HTTPMethod)
        ? Errors.methodNotAllowed(request.method, path, allowed.join(', '))
        : Errors.routeNotFound(request.method, path);
    return sendError(request, reply, error);
  });
}
