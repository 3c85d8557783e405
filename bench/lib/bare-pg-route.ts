/**
 * What the hand-written SQL baselines share (`properties-sql-server.ts`, `contacts-sql-server.ts`,
 * `detail-sql-server.ts`, `finder-sql-server.ts`): a bare Fastify 5 server (default options, no
 * logger, no hooks, no schemas) with one route whose handler runs its own SQL on a plain `pg.Pool`
 * and answers `JSON.stringify` of an object it maps itself. No service code: no drizzle, no
 * transaction, no row-level security (DATABASE_URL's user is a superuser, which bypasses it), no key
 * verification or rate limiting (the key is looked up in a map to find its organization).
 *
 * Each baseline answers only the requests its scenario sends; anything else is a 400 naming what it
 * does not handle (`Unsupported`), so a scenario that changes its requests fails loudly instead of
 * comparing a different query.
 */
import { randomFillSync } from 'node:crypto';
import Fastify, { type FastifyRequest } from 'fastify';
import pg from 'pg';

export interface BarePgRouteOptions {
  databaseUrl: string;
  /** As the service's pool (src/db/database.ts: 10). */
  poolSize: number;
  /** API key -> organization id (what the service's key lookup answers). */
  keyOrganizations: Record<string, string>;
}

/** A request the baseline does not answer (it would have to be another statement): a 400. */
export class Unsupported extends Error {}

export async function listenBarePgRoute(
  options: BarePgRouteOptions,
  route: {
    method: 'GET' | 'POST';
    url: string;
    /** 200 for reads, 201 for creations. */
    status: number;
    handle: (pool: pg.Pool, organizationId: string, request: FastifyRequest) => Promise<unknown>;
  },
) {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize });
  const keys = new Map(Object.entries(options.keyOrganizations));
  const app = Fastify();
  app.route({
    method: route.method,
    url: route.url,
    handler: async (request, reply) => {
      const organizationId = keys.get(String(request.headers['x-api-key']));
      if (organizationId === undefined) return reply.code(401).send({ error: 'unknown key' });
      try {
        const answer = await route.handle(pool, organizationId, request);
        return reply
          .code(route.status)
          .header('content-type', 'application/json; charset=utf-8')
          .send(JSON.stringify(answer));
      } catch (error) {
        if (error instanceof Unsupported) return reply.code(400).send({ error: error.message });
        throw error;
      }
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    info: { fastify: app.version, poolSize: options.poolSize, baseline: 'hand-written SQL' },
    async close() {
      await app.close();
      await pool.end();
    },
  };
}

/** Lowercase, accent-free (NFD, combining marks dropped), trimmed: how the search columns are stored. */
export const foldText = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

/** `%word%` LIKE patterns of each whitespace-separated word, wildcards escaped. */
export const likePatterns = (words: string[]) => words.map((w) => `%${w.replace(/[\\%_]/g, '\\$&')}%`);

/** A timestamp column as `Date#toISOString` shows it (milliseconds truncated, as the driver reads it). */
export const isoSql = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The query string's values, refusing any parameter outside `allowed` (it would change the SQL). */
export function queryOf(request: FastifyRequest, allowed: readonly string[]): Record<string, string> {
  const query = request.query as Record<string, string | string[]>;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.includes(name) || typeof value !== 'string')
      throw new Unsupported(`the baseline does not handle the query parameter ${name}`);
    out[name] = value;
  }
  return out;
}

/** A whole number in [min, max] from the query (or `fallback` when absent). */
export function integerOf(raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Unsupported(`expected a whole number in ${min}..${max}, got ${raw}`);
  return value;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * An id of the application's shape (`evt_` then 9 base62 characters of milliseconds and 13 random
 * ones), so rows the baseline writes read back like the service's.
 */
export function baselineId(prefix: string): string {
  let time = '';
  for (let rest = Date.now(), i = 0; i < 9; i++, rest = Math.floor(rest / 62))
    time = BASE62[rest % 62] + time;
  const bytes = randomFillSync(Buffer.alloc(13));
  let random = '';
  for (const byte of bytes) random += BASE62[byte % 62];
  return `${prefix}_${time}${random}`;
}
