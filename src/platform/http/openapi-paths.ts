import type { RouteEntry } from './conventions.ts';

type Paths = Record<string, Record<string, { operationId?: string } | undefined>>;

/**
 * @fastify/swagger reads every `(` of a route's URL as the start of a parameter's regular expression, so
 * a literal one (OData's key syntax, `/v1/reso/Property(':ListingKey')`) comes out as
 * `/v1/reso/Property{regexp1}`. Such a route's path is put back from the route table (`:name` ->
 * `{name}`), in place, before anything else matches operations to routes by path.
 */
export function literalParenthesesInPaths<T extends object>(document: T, routes: RouteEntry[]): T {
  const doc = document as T & { paths?: Paths };
  if (!doc.paths) return document;
  const renamed = new Map<string, string>();
  for (const route of routes) {
    if (!route.url.includes('(') || !route.operationId) continue;
    const method = route.method.toLowerCase();
    const found = Object.entries(doc.paths).find(
      ([, item]) => item[method]?.operationId === route.operationId,
    );
    if (found) renamed.set(found[0], route.url.replace(/:(\w+)/g, '{$1}'));
  }
  if (renamed.size === 0) return document;
  doc.paths = Object.fromEntries(
    Object.entries(doc.paths).map(([path, item]) => [renamed.get(path) ?? path, item]),
  );
  return document;
}
