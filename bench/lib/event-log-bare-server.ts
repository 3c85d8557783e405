/**
 * Child-process entry: the baseline of the `sync` scenario's event-log part. One route,
 * GET /v1/event-log?after=&pageSize=, on a bare Fastify 5 server (default options, no logger, no
 * hooks) with a plain pg Pool: one hand-written SELECT on the (organization_id, sequence) index, rows
 * mapped to the envelope by hand, serialized through the same response schema. No service code: no
 * RLS, transaction, key verification or rate limiting (the key is looked up in a map).
 */
import Fastify from 'fastify';
import pg from 'pg';
import {
  EventLogListResponseSchema,
  EventLogMetaSchema,
} from '../../src/features/event-log/event-log.schema.ts';
import { EventEnvelopeSchema } from '../../src/platform/events/envelope.ts';
import { serveChild } from './protocol.ts';

export interface EventLogBareServerOptions {
  databaseUrl: string;
  poolSize: number;
  keyOrganizations: Record<string, string>;
}

interface Row {
  id: string;
  organization_id: string;
  type: string;
  livemode: boolean;
  actor: { kind: string | null; userId: string | null };
  data: Record<string, unknown>;
  created_at: Date;
  sequence: string;
}

serveChild<EventLogBareServerOptions>(async (options) => {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize });
  const keys = new Map(Object.entries(options.keyOrganizations));
  const app = Fastify();
  app.addSchema(EventEnvelopeSchema);
  app.addSchema(EventLogMetaSchema);
  app.get('/v1/event-log', { schema: { response: { 200: EventLogListResponseSchema } } }, async (request) => {
    const organizationId = keys.get(String(request.headers['x-api-key']));
    if (organizationId === undefined) throw new Error('unknown key');
    const query = request.query as { after?: string; pageSize?: string };
    const after = Number(query.after ?? 0);
    const pageSize = Number(query.pageSize ?? 25);
    const { rows } = await pool.query<Row>(
      `SELECT id, organization_id, type, livemode, actor, data, created_at, sequence FROM events
       WHERE organization_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
      [organizationId, after, pageSize + 1],
    );
    const page = rows.slice(0, pageSize);
    return {
      data: page.map((row) => ({
        event: row.type,
        id: row.id,
        type: row.type,
        timestamp: row.created_at.toISOString(),
        organizationId: row.organization_id,
        livemode: row.livemode,
        actor: row.actor,
        data: row.data,
        sequence: Number(row.sequence),
      })),
      meta: {
        pageSize,
        hasMore: rows.length > pageSize,
        nextCursor: page.length > 0 ? Number(page.at(-1)?.sequence) : after,
      },
    };
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
});
