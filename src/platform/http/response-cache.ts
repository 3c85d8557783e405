// Cacheable portal reads (decision 0225). Routes declaring `cache: 'portal'` answer with a strong
// ETag (a hash of the body), `If-None-Match` -> 304, and `Cache-Control`/`Vary` for browsers and CDNs.
// In each process an LRU keeps answers by organization, portal version and normalized request; the
// version is read before every lookup (one round trip), and on a miss in the very transaction that
// reads the data (read-probe.ts), so an answer is never kept under a version newer than its data and
// no process answers from a version older than a committed, acknowledged write.
import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fresh from 'fresh';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, type Metric } from 'prom-client';
import type { Database } from '../../db/database.ts';
import { withReadProbe } from '../../db/read-probe.ts';
import { appendRouteHook } from './conventions.ts';
import { servedLanguage, type ServedLanguages } from './languages.ts';

export interface ResponseCacheSettings {
  /** PORTAL_CACHE_SIZE_MB in bytes: answers kept per process; 0 keeps none (ETags and 304s stay). */
  maxBytes: number;
  /** PORTAL_CACHE_MAX_AGE_S: how long a browser or CDN may reuse an answer without asking. */
  maxAgeS: number;
}

/** The organization's portal version; RLS and the explicit condition scope it to the tenant. */
export const PORTAL_VERSION_STATEMENT =
  "SELECT coalesce((SELECT value FROM organization_counters WHERE organization_id = current_setting('app.organization_id') " +
  "AND name = 'portal_version'), 0)::text AS version";

interface Entry {
  body: string;
  etag: string;
  /** The Content-Language the answer was sent with, if any. */
  language: string | undefined;
}

/** What a cached route's request carries from its lookup to its answer. */
interface Lookup {
  key: string;
  /** Set when the answer came from the cache. */
  hit: Entry | null;
  /** The portal version every read transaction of the request saw; null until one, false if they differ. */
  seen: string | null | false;
}

const lookups = new WeakMap<FastifyRequest, Lookup>();

/** A strong validator of the exact bytes: 128 bits of SHA-256, base64url. */
export function etagOf(body: string): string {
  // One-shot (Node 20.12+: the engines floor is 20.19), cheaper than a Hash object on a listing's bytes.
  return `"${hash('sha256', body, 'base64url').slice(0, 22)}"`;
}

/**
 * Path, path parameters, the validated query (defaults applied, keys sorted) and the language the
 * answer is served in (the query's `lang` or Accept-Language; languages.ts): one request, one key.
 */
function requestKey(request: FastifyRequest, organization: ServedLanguages & { id: string }): string {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const sorted = Object.keys(query)
    .sort()
    .map((name) => [name, query[name]]);
  return `${organization.id}\u0000${servedLanguage(request, organization)}\u0000${request.routeOptions.url}\u0000${JSON.stringify(request.params ?? {})}\u0000${JSON.stringify(sorted)}`;
}

export function registerResponseCache(
  app: FastifyInstance,
  db: Database,
  settings: ResponseCacheSettings,
): Metric[] {
  const cache =
    settings.maxBytes > 0
      ? new LRUCache<string, Entry>({
          maxSize: settings.maxBytes,
          sizeCalculation: (entry, key) => entry.body.length + key.length + 64,
        })
      : null;
  // Shared caches may keep what a publishable key (a browser's) fetched; a secret key's copy stays private.
  const publicControl = `public, max-age=${settings.maxAgeS}`;
  const privateControl = `private, max-age=${settings.maxAgeS}`;
  const results = new Counter({
    name: 'portal_cache_requests_total',
    help: 'Cacheable portal reads by result: hit, miss (answered from the database), not_modified (304)',
    labelNames: ['result'],
    registers: [],
  });
  const size = new Gauge({
    name: 'portal_cache_bytes',
    help: 'Bytes of answers the portal cache of this process holds (PORTAL_CACHE_SIZE_MB at most)',
    registers: [],
    collect() {
      this.set(cache?.calculatedSize ?? 0);
    },
  });

  function lookup(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    const organization = request.caller?.organization;
    if (cache === null || organization === undefined) return done();
    const organizationId = organization.id;
    const state: Lookup = { key: requestKey(request, organization), hit: null, seen: null };
    lookups.set(request, state);
    db.readStatement<{ version: string }>(organizationId, PORTAL_VERSION_STATEMENT).then((rows) => {
      const entry = cache.get(`${rows[0]?.version ?? '0'}\u0000${state.key}`);
      if (entry !== undefined) {
        state.hit = entry;
        if (entry.language !== undefined) reply.header('content-language', entry.language);
        reply.type('application/json; charset=utf-8').send(entry.body);
        return;
      }
      const probe = {
        statement: PORTAL_VERSION_STATEMENT,
        seen(found: readonly Record<string, unknown>[]) {
          const version = String(found[0]?.version ?? '0');
          if (state.seen === null) state.seen = version;
          else if (state.seen !== version) state.seen = false;
        },
      };
      // Everything the handler starts runs with the probe: its read transactions report the version.
      withReadProbe(probe, done);
    }, done);
  }

  async function answer(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const state = lookups.get(request);
    const etag = state?.hit?.etag ?? etagOf(payload);
    if (cache !== null && state !== undefined && state.hit === null && typeof state.seen === 'string') {
      const language = reply.getHeader('content-language');
      cache.set(`${state.seen}\u0000${state.key}`, {
        body: payload,
        etag,
        language: typeof language === 'string' ? language : undefined,
      });
    }
    const shared = request.caller?.keyType === 'publishable';
    reply
      .header('etag', etag)
      .header('cache-control', shared ? publicControl : privateControl)
      .header('vary', 'X-API-Key, Accept-Language');
    // RFC 9110 13.2.2: an origin server evaluates If-None-Match whatever the request's Cache-Control.
    // `fresh` alone would refuse every 304 to `no-cache`, which fetch() adds to any conditional request.
    const notModified = fresh({ 'if-none-match': request.headers['if-none-match'] }, { etag });
    results.inc({ result: notModified ? 'not_modified' : state?.hit ? 'hit' : 'miss' });
    if (!notModified) return payload;
    reply.code(304);
    return '';
  }

  app.addHook('onRoute', (route) => {
    if ((route.config as { cache?: 'portal' } | undefined)?.cache !== 'portal') return;
    appendRouteHook(route, 'preHandler', lookup);
    appendRouteHook(route, 'onSend', answer);
  });
  return [results, size];
}
