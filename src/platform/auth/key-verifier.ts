import { eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/database.ts';
import { apiKeys, organizations, type KeyStatus } from '../../db/schema.ts';
import type { Logger } from '../logging/logger.ts';
import { hashKey, parseKey, type KeyMode, type KeyType } from './keys.ts';
import { KEY_TYPE_LIMITS, PLAN_WRITE_LIMITS, type Plan } from './plans.ts';
import type { Principal } from './principal.ts';
import { isScope } from './scopes.ts';

/**
 * How long a verified key is trusted without looking again. Suspension and deactivation made on
 * another process therefore take effect within this time (the requirement is 5 s).
 */
export const KEY_CACHE_TTL_MS = 2_000;
const LAST_USED_FLUSH_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;

export type KeyLookup =
  | { outcome: 'unknown' }
  | { outcome: 'found'; status: KeyStatus; expiresAt: Date | null; principal: Principal };

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
    const live = alias(organizations, 'live');
    const rows = await this.db.systemTx((tx) =>
      tx
        .select({
          key: apiKeys,
          acting: { id: organizations.id, liveOrganizationId: organizations.liveOrganizationId },
          live: {
            id: live.id,
            name: live.name,
            plan: live.plan,
            isActive: live.isActive,
            readOnly: live.readOnly,
            writeLimitPerMinute: live.writeLimitPerMinute,
            defaultCountry: live.defaultCountry,
            defaultCurrency: live.defaultCurrency,
            mcpMaskPersonalData: live.mcpMaskPersonalData,
            defaultLanguage: live.defaultLanguage,
            otherLanguages: live.otherLanguages,
          },
        })
        .from(apiKeys)
        .innerJoin(organizations, sql`${organizations.id} = ${apiKeys.organizationId}`)
        .innerJoin(live, sql`${live.id} = coalesce(${organizations.liveOrganizationId}, ${organizations.id})`)
        .where(eq(apiKeys.keyHash, hash))
        .limit(1),
    );
    const row = rows[0];
    if (!row) return { outcome: 'unknown' };
    const { key, acting } = row;
    const liveOrg = row.live;
    // The twin of a downgraded organization must not keep the old organization-wide write limit.
    const orgWriteLimit = liveOrg.writeLimitPerMinute ?? PLAN_WRITE_LIMITS[liveOrg.plan as Plan];
    const defaults = KEY_TYPE_LIMITS[key.type as KeyType];
    const principal: Principal = {
      keyId: key.id,
      keyPrefix: key.keyPrefix,
      keyType: key.type as KeyType,
      mode: key.mode as KeyMode,
      scopes: key.scopes.filter(isScope),
      accessLevel: Math.min(3, Math.max(1, key.accessLevel)) as 1 | 2 | 3,
      agentId: key.agentId,
      organization: {
        id: acting.id,
        liveOrganizationId: liveOrg.id,
        name: liveOrg.name,
        plan: liveOrg.plan as Plan,
        isActive: liveOrg.isActive,
        readOnly: liveOrg.readOnly,
        livemode: acting.liveOrganizationId === null,
        writesPerMinute: orgWriteLimit,
        defaultCountry: liveOrg.defaultCountry,
        defaultCurrency: liveOrg.defaultCurrency,
        mcpMaskPersonalData: liveOrg.mcpMaskPersonalData,
        defaultLanguage: liveOrg.defaultLanguage,
        otherLanguages: liveOrg.otherLanguages,
      },
      limits: {
        requestsPerMinute: key.rateLimitPerMinute ?? defaults.requestsPerMinute,
        writesPerMinute: key.writeLimitPerMinute ?? defaults.writesPerMinute,
      },
    };
    return { outcome: 'found', status: key.status as KeyStatus, expiresAt: key.expiresAt, principal };
  }
}
