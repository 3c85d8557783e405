import { and, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/database.ts';
import { agents, organizations } from '../../db/schema.ts';
import type { CallerOrganization } from './caller.ts';
import { PLAN_WRITE_LIMITS, type Plan } from './plans.ts';

/**
 * How long an organization's or agent's state is trusted without reading it again: the same as a
 * verified key's (key-verifier.ts), so deactivating an organization stops every credential kind
 * within this time on every process (the requirement is 5 s), and at once on the process that did it.
 */
export const STATE_CACHE_TTL_MS = 2_000;
const CACHE_MAX_ENTRIES = 10_000;

/** What a caller carries of its live organization (a twin shares its state). */
export interface LiveOrganizationRow {
  id: string;
  name: string;
  plan: string;
  isActive: boolean;
  readOnly: boolean;
  writeLimitPerMinute: number | null;
  defaultCountry: string;
  defaultCurrency: string;
  mcpMaskPersonalData: boolean;
  defaultLanguage: string;
  otherLanguages: string[];
  timezone: string;
}

/** The select of `LiveOrganizationRow` from `organizations` or an alias of it. */
export const liveOrganizationColumns = (live: typeof organizations | ReturnType<typeof aliasLive>) => ({
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
  timezone: live.timezone,
});

/** `organizations` as the live one of a twin: `live`. */
export const aliasLive = () => alias(organizations, 'live');

/** The caller's organization: the acting one (a twin for test mode) with its live organization's state. */
export function callerOrganizationOf(
  acting: { id: string; liveOrganizationId: string | null },
  live: LiveOrganizationRow,
): CallerOrganization {
  return {
    id: acting.id,
    liveOrganizationId: live.id,
    name: live.name,
    plan: live.plan as Plan,
    isActive: live.isActive,
    readOnly: live.readOnly,
    livemode: acting.liveOrganizationId === null,
    // The twin of a downgraded organization must not keep the old organization-wide write limit.
    writesPerMinute: live.writeLimitPerMinute ?? PLAN_WRITE_LIMITS[live.plan as Plan],
    defaultCountry: live.defaultCountry,
    defaultCurrency: live.defaultCurrency,
    mcpMaskPersonalData: live.mcpMaskPersonalData,
    defaultLanguage: live.defaultLanguage,
    otherLanguages: live.otherLanguages,
    timezone: live.timezone,
  };
}

/** The organization `organizationId` names (live or twin) with its live one's state, read now; null when unknown. */
export async function loadCallerOrganization(
  db: Database,
  organizationId: string,
): Promise<CallerOrganization | null> {
  const live = aliasLive();
  const [row] = await db.systemTx((tx) =>
    tx
      .select({
        acting: { id: organizations.id, liveOrganizationId: organizations.liveOrganizationId },
        live: liveOrganizationColumns(live),
      })
      .from(organizations)
      .innerJoin(live, sql`${live.id} = coalesce(${organizations.liveOrganizationId}, ${organizations.id})`)
      .where(eq(organizations.id, organizationId))
      .limit(1),
  );
  return row ? callerOrganizationOf(row.acting, row.live) : null;
}

class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly pending = new Map<string, Promise<V>>();
  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<V>): V | Promise<V> {
    const cached = this.entries.get(key);
    if (cached && cached.until > Date.now()) return cached.value;
    let pending = this.pending.get(key);
    if (!pending) {
      pending = load().then(
        (value) => {
          this.pending.delete(key);
          if (this.entries.size >= CACHE_MAX_ENTRIES) this.entries.clear();
          this.entries.set(key, { value, until: Date.now() + this.ttlMs });
          return value;
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

  clear() {
    this.entries.clear();
  }
}

/**
 * Organization and agent states for credentials other than API keys (a key's lookup reads them with
 * the key, key-verifier.ts): read across tenants, as a credential's own lookup is, through a short cache.
 */
export class OrganizationStates {
  private readonly organizations: TtlCache<CallerOrganization | null>;
  private readonly agents: TtlCache<boolean | null>;

  constructor(
    private readonly db: Database,
    ttlMs = STATE_CACHE_TTL_MS,
  ) {
    this.organizations = new TtlCache(ttlMs);
    this.agents = new TtlCache(ttlMs);
  }

  /** The organization `organizationId` names (live or twin), with its live organization's state; null when unknown. */
  organization(organizationId: string): CallerOrganization | null | Promise<CallerOrganization | null> {
    return this.organizations.get(organizationId, async () => {
      const live = aliasLive();
      const [row] = await this.db.systemTx((tx) =>
        tx
          .select({
            acting: { id: organizations.id, liveOrganizationId: organizations.liveOrganizationId },
            live: liveOrganizationColumns(live),
          })
          .from(organizations)
          .innerJoin(
            live,
            sql`${live.id} = coalesce(${organizations.liveOrganizationId}, ${organizations.id})`,
          )
          .where(eq(organizations.id, organizationId))
          .limit(1),
      );
      return row ? callerOrganizationOf(row.acting, row.live) : null;
    });
  }

  /** Whether the agent is active: true, false (deactivated), or null when it is not the organization's. */
  agentActive(organizationId: string, agentId: string): boolean | null | Promise<boolean | null> {
    return this.agents.get(`${organizationId}/${agentId}`, async () => {
      const [row] = await this.db.systemTx((tx) =>
        tx
          .select({ active: agents.active })
          .from(agents)
          .where(and(eq(agents.organizationId, organizationId), eq(agents.id, agentId)))
          .limit(1),
      );
      return row ? row.active : null;
    });
  }

  /** Forgets every cached state (this process sees an operator's change at once). */
  invalidate(): void {
    this.organizations.clear();
    this.agents.clear();
  }
}
