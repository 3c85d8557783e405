/**
 * What both SQL baselines share (`bare-sql-server.ts`, `contacts-bare-server.ts`): a bare Fastify 5
 * server (default options, no logger, no hooks) with one GET route declared with the service's
 * query-string and response schemas, whose handler runs a feature service's own read on a plain pg
 * Pool — no transaction (the service's `db.tenantTx(org, fn)` runs `fn` straight on the pool), no RLS
 * (the pool connects as DATABASE_URL's user; a superuser bypasses row-level security), no key
 * verification or rate limiting (the key is looked up in a map to find its organization).
 */
import type { TSchema } from '@fastify/type-provider-typebox';
import { drizzle } from 'drizzle-orm/node-postgres';
import Fastify from 'fastify';
import pg from 'pg';
import type { Database, Tx } from '../../src/db/database.ts';
import * as schema from '../../src/db/schema.ts';

export interface BareTenantRouteOptions {
  databaseUrl: string;
  /** As the service's pool (src/db/database.ts: 10). */
  poolSize: number;
  /** API key -> organization id (what the service's key lookup answers). */
  keyOrganizations: Record<string, string>;
}

export async function listenBareTenantRoute(
  options: BareTenantRouteOptions,
  route: {
    url: string;
    /** Named schemas the route's schemas refer to. */
    schemas: TSchema[];
    querystring: TSchema;
    response: TSchema;
    read: (db: Database, organizationId: string, query: unknown) => Promise<unknown>;
  },
) {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize });
  const handle = drizzle(pool, { schema }) as unknown as Tx;
  const plain = {
    tenantTx: (_organizationId: string, fn: (tx: Tx) => Promise<unknown>) => fn(handle),
  } as unknown as Database;
  const keys = new Map(Object.entries(options.keyOrganizations));

  const app = Fastify();
  for (const shared of route.schemas) app.addSchema(shared);
  app.get(
    route.url,
    { schema: { querystring: route.querystring, response: { 200: route.response } } },
    async (request) => {
      const organizationId = keys.get(String(request.headers['x-api-key']));
      if (organizationId === undefined) throw new Error('unknown key');
      return route.read(plain, organizationId, request.query);
    },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    info: { fastify: app.version, poolSize: options.poolSize },
    async close() {
      await app.close();
      await pool.end();
    },
  };
}
