import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/database.ts';
import { agents, apiKeys, organizations, type KeyStatus } from '../../db/schema.ts';
import type { Logger } from '../logging/logger.ts';
import { hashKey, parseKey } from './keys.ts';
import { aliasLive, callerOrganizationOf, liveOrganizationColumns } from './organization-states.ts';
import { KEY_TYPE_LIMITS } from './plans.ts';
import type { Caller } from './caller.ts';
import { heldScopes } from './scopes.ts';

/**
 * How long a verified key is trusted without looking again. Suspension and deactivation made on
 * another process therefore take effect within this time (the requirement is 5 s).
 */
export const KEY_CACHE_TTL_MS = 2_000;
const LAST_USED_FLUSH_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;

export type KeyLookup =
  | { outcome: 'unknown' }
  | { outcome: 'found'; status: KeyStatus; expiresAt: Date | null; agentActive: boolean; caller: Caller };

interface CacheEntry {
  lookup: KeyLookup;
  until: number;
}

/**
 * Verifies API keys against the database with a short in-memory cache; records lastUsedAt in batches.
 * The cache is keyed by the presented key itself, so a cached key costs one map lookup (no parsing,
 * no hashing): the key is in this process's memory while it serves the request anyway.
 */
export class KeyVerifier {
  private readonly cache = new Map<string, CacheEntry>();
  /** Lookups in flight: when an entry expires under load, one query serves every waiting request. */
  private readonly pending = new Map<string, Promise<KeyLookup>>();
  private readonly lastUsed = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
  ) {
    this.timer = setInterval(() => void this.flushLastUsed(), LAST_USED_FLUSH_MS);
    this.timer.unref();
  }

  /**
   * Looks a key up: from the cache, else (format and checksum first, so garbage never reaches the
   * database) from the database, one query per key however many requests wait for it.
   */
  lookup(key: string): KeyLookup | Promise<KeyLookup> {
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.lookup;
    if (parseKey(key) === null) return { outcome: 'unknown' };
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.load(hashKey(key)).then(
        (lookup) => {
          this.pending.delete(key);
          if (lookup.outcome === 'found') {
            if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
            this.cache.set(key, { lookup, until: Date.now() + this.ttlMs });
          }
          return lookup;
        },
        (error: unknown) => {
          this.pending.delete(key);
          throw error;
        },
      );
      this.pending.set(key, pending);
    }
    return pending;
  }

  /** Remembers that a key was used; written to the database in the background. */
  touch(keyId: string): void {
    this.lastUsed.set(keyId, Date.now());
  }

  /** Drops every cached verification (this process learns of a change at once). */
  invalidate(): void {
    this.cache.clear();
  }

  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = [...this.lastUsed.entries()];
    this.lastUsed.clear();
    try {
      await this.db.systemTx((tx) =>
        tx.execute(sql`
          UPDATE api_keys AS k SET last_used_at = v.used_at
          FROM (SELECT unnest(${sql.param(batch.map(([id]) => id))}::text[]) AS id,
                       unnest(${sql.param(batch.map(([, at]) => new Date(at).toISOString()))}::timestamptz[]) AS used_at) AS v
          WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.used_at)`),
      );
    } catch (error) {
      this.log.warn({ err: error }, 'could not record api key lastUsedAt');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushLastUsed();
  }

  private async load(hash: string): Promise<KeyLookup> {
    const live = aliasLive();
    const rows = await this.db.systemTx((tx) =>
      tx
        .select({
          key: apiKeys,
          acting: { id: organizations.id, liveOrganizationId: organizations.liveOrganizationId },
          live: liveOrganizationColumns(live),
          agentActive: agents.active,
        })
        .from(apiKeys)
        .innerJoin(organizations, sql`${organizations.id} = ${apiKeys.organizationId}`)
        .innerJoin(live, sql`${live.id} = coalesce(${organizations.liveOrganizationId}, ${organizations.id})`)
        .leftJoin(
          agents,
          sql`${agents.organizationId} = ${apiKeys.organizationId} AND ${agents.id} = ${apiKeys.agentId}`,
        )
        .where(eq(apiKeys.keyHash, hash))
        .limit(1),
    );
    const row = rows[0];
    if (!row) return { outcome: 'unknown' };
    const { key } = row;
    const defaults = KEY_TYPE_LIMITS[key.type];
    const scopes = heldScopes(key.scopes, key.type, key.scopesFollowDefaults);
    const accessLevel = Math.min(3, Math.max(1, key.accessLevel)) as 1 | 2 | 3;
    const caller: Caller = {
      credential: 'api_key',
      keyId: key.id,
      keyPrefix: key.keyPrefix,
      keyType: key.type,
      mode: key.mode,
      scopes,
      accessLevel,
      agentId: key.agentId,
      organization: callerOrganizationOf(row.acting, row.live),
      limits: {
        requestsPerMinute: key.rateLimitPerMinute ?? defaults.requestsPerMinute,
        writesPerMinute: key.writeLimitPerMinute ?? defaults.writesPerMinute,
      },
      grants: { scopes, accessLevel },
      expiresAt: key.expiresAt,
    };
    return {
      outcome: 'found',
      status: key.status,
      expiresAt: key.expiresAt,
      // A key bound to an agent works while that agent is active (and exists: nothing unbinds its keys).
      agentActive: key.agentId === null || row.agentActive === true,
      caller,
    };
  }
}
