/**
 * What the "self" baselines share (`bare-sql-server.ts`, `contacts-bare-server.ts`,
 * `detail-bare-server.ts`, `leads-bare-server.ts`; the hand-written ones are on bare-pg-route.ts): a
 * bare Fastify 5 server (default options, no logger, no hooks) with one route declared with the
 * service's schemas, whose handler runs a feature service's own code on a plain pg Pool — no RLS
 * (the pool connects as DATABASE_URL's user; a superuser bypasses row-level security), no key
 * verification or rate limiting (the key is looked up in a map to find its organization). Reads run
 * straight on the pool (the service's `db.readTx(org, fn)` and `db.tenantTx(org, fn)` run `fn`
 * without a transaction); writes (`transaction: true`) run in one transaction with the tenant set,
 * as the events' statement needs, without the role switch.
 */
import type { TSchema } from '@fastify/type-provider-typebox';
import { drizzle } from 'drizzle-orm/node-postgres';
import Fastify from 'fastify';
import pg from 'pg';
import type { Database, Tx } from '../../src/db/database.ts';
import * as schema from '../../src/db/schema.ts';
import { annotationKeywords } from '../../src/platform/http/schemas.ts';

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
    method?: 'GET' | 'POST';
    url: string;
    /** Named schemas the route's schemas refer to. */
    schemas: TSchema[];
    querystring?: TSchema;
    params?: TSchema;
    body?: TSchema;
    response: TSchema;
    /** The success status (200 for reads, 201 for creations). */
    status?: number;
    /** Run the handler's tenantTx calls as transactions with the tenant set (writes). */
    transaction?: boolean;
    read: (
      db: Database,
      organizationId: string,
      query: unknown,
      request: { params: unknown; body: unknown },
    ) => Promise<unknown>;
  },
) {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize });
  const handle = drizzle(pool, { schema }) as unknown as Tx;
  // One Drizzle handle per pooled connection, built once (building one parses the schema).
  const handles = new WeakMap<pg.PoolClient, Tx>();
  const inTransaction = async (organizationId: string, fn: (tx: Tx) => Promise<unknown>) => {
    if (!/^org_[0-9A-Za-z]{22}$/.test(organizationId)) throw new Error('malformed organization id');
    const client = await pool.connect();
    let tx = handles.get(client);
    if (!tx) {
      tx = drizzle(client, { schema }) as unknown as Tx;
      handles.set(client, tx);
    }
    try {
      // BEGIN and the tenant in one round trip, as the service does (the id is checked above).
      await client.query(`BEGIN; SELECT set_config('app.organization_id', '${organizationId}', true)`);
      const result = await fn(tx);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw error;
    }
  };
  const onPool = (_organizationId: string, fn: (tx: Tx) => Promise<unknown>) => fn(handle);
  // Reads go through `readTx` (a read-only transaction, or a replica, in the service) and writes
  // through `tenantTx`; both run straight on the pool here, unless the route asks for a transaction.
  const plain = {
    tenantTx: route.transaction ? inTransaction : onPool,
    readTx: route.transaction ? inTransaction : onPool,
  } as unknown as Database;
  const keys = new Map(Object.entries(options.keyOrganizations));
  const status = route.status ?? 200;

  // The service's schemas carry annotation keywords Ajv's strict mode refuses unless declared.
  const app = Fastify({ ajv: { plugins: [annotationKeywords] } });
  for (const shared of route.schemas) app.addSchema(shared);
  app.route({
    method: route.method ?? 'GET',
    url: route.url,
    schema: {
      ...(route.querystring ? { querystring: route.querystring } : {}),
      ...(route.params ? { params: route.params } : {}),
      ...(route.body ? { body: route.body } : {}),
      response: { [status]: route.response },
    },
    handler: async (request, reply) => {
      const organizationId = keys.get(String(request.headers['x-api-key']));
      if (organizationId === undefined) throw new Error('unknown key');
      const answer = await route.read(plain, organizationId, request.query, {
        params: request.params,
        body: request.body,
      });
      return reply.code(status).send(answer);
    },
  });
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
