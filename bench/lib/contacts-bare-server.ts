/**
 * Child-process entry: the baseline of the contacts scenario. A bare Fastify 5 server with one route,
 * GET /v1/contacts, declared with the service's query-string and response schemas, whose handler runs
 * the service's own `listContacts` (same `q` folding, same drizzle statements, same mapping) on a
 * plain pg Pool: no transaction, no RLS, no key verification or rate limiting.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import Fastify from 'fastify';
import pg from 'pg';
import type { Database, Tx } from '../../src/db/database.ts';
import * as schema from '../../src/db/schema.ts';
import {
  ContactListResponseSchema,
  contactsSchemas,
  ListContactsQuerySchema,
} from '../../src/features/contacts/contacts.schema.ts';
import { listContacts } from '../../src/features/contacts/contacts.service.ts';
import type { Principal } from '../../src/platform/auth/principal.ts';
import { PageMetaSchema } from '../../src/platform/http/schemas.ts';
import { serveChild } from './protocol.ts';

export interface ContactsBareServerOptions {
  databaseUrl: string;
  poolSize: number;
  keyOrganizations: Record<string, string>;
}

serveChild<ContactsBareServerOptions>(async (options) => {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize });
  const handle = drizzle(pool, { schema }) as unknown as Tx;
  const plain = { tenantTx: (_organizationId: string, fn: (tx: Tx) => Promise<unknown>) => fn(handle) };
  const keys = new Map(Object.entries(options.keyOrganizations));
  const app = Fastify();
  for (const shared of [PageMetaSchema, ...contactsSchemas]) app.addSchema(shared);
  app.get(
    '/v1/contacts',
    { schema: { querystring: ListContactsQuerySchema, response: { 200: ContactListResponseSchema } } },
    async (request) => {
      const organizationId = keys.get(String(request.headers['x-api-key']));
      if (organizationId === undefined) throw new Error('unknown key');
      const principal = { organization: { id: organizationId } } as unknown as Principal;
      return listContacts(plain as unknown as Database, principal, request.query as never);
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
