/**
 * Child-process entry: the baseline of the portal scenario. A bare Fastify 5 server (default
 * options, no logger, no hooks) with one route, GET /v1/properties, declared with the service's
 * query-string and response schemas, whose handler runs the service's own search
 * (`searchPortalProperties`: same filter parsing, same drizzle statements, same mapping) on a plain
 * pg Pool: no transaction (so no BEGIN / set_config / SET LOCAL ROLE / COMMIT round trips), no RLS
 * (the pool connects as DATABASE_URL's user; a superuser bypasses row-level security), no key
 * verification or rate limiting (the key is looked up in a map to find its organization).
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import Fastify from 'fastify';
import pg from 'pg';
import type { Database, Tx } from '../../src/db/database.ts';
import * as schema from '../../src/db/schema.ts';
import {
  PortalListQuerySchema,
  PortalPropertyListResponseSchema,
  propertiesSchemas,
  type PortalListQuery,
} from '../../src/features/properties/properties.schema.ts';
import { searchPortalProperties } from '../../src/features/properties/properties.service.ts';
import { PageMetaSchema } from '../../src/platform/http/schemas.ts';
import { serveChild } from './protocol.ts';
import { captureSql, type CaptureOptions } from './sql-capture.ts';

export interface BareSqlServerOptions {
  databaseUrl: string;
  /** As the service's pool (src/db/database.ts: 10). */
  poolSize: number;
  /** API key -> organization id (what the service's key lookup answers). */
  keyOrganizations: Record<string, string>;
  captureSql?: CaptureOptions;
}

serveChild<BareSqlServerOptions>(async (options) => {
  if (options.captureSql) captureSql(options.captureSql);
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize });
  const handle = drizzle(pool, { schema }) as unknown as Tx;
  // The service's search calls db.tenantTx(org, fn); here fn runs straight on the pool.
  const plain = { tenantTx: (_organizationId: string, fn: (tx: Tx) => Promise<unknown>) => fn(handle) };
  const keys = new Map(Object.entries(options.keyOrganizations));

  const app = Fastify();
  for (const shared of [PageMetaSchema, ...propertiesSchemas]) app.addSchema(shared);
  app.get(
    '/v1/properties',
    { schema: { querystring: PortalListQuerySchema, response: { 200: PortalPropertyListResponseSchema } } },
    async (request) => {
      const organizationId = keys.get(String(request.headers['x-api-key']));
      if (organizationId === undefined) throw new Error('unknown key');
      return searchPortalProperties(
        plain as unknown as Database,
        organizationId,
        request.query as PortalListQuery,
      );
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
});
