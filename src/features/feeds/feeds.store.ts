// The feeds' SQL: the organization a feed token names (read before any tenant is known, like an API key
// by its hash), its token, and its portal version with the time it last changed.
import { eq, sql } from 'drizzle-orm';
import type { Database, Tx } from '../../db/database.ts';
import { organizationCounters, organizations } from '../../db/schema.ts';

export interface FeedOrganization {
  id: string;
  name: string;
  defaultLanguage: string;
  otherLanguages: string[];
}

/** The organization whose feed token hashes to `tokenHash`, or null. */
export async function findByTokenHash(db: Database, tokenHash: string): Promise<FeedOrganization | null> {
  const rows = await db.systemTx((tx) =>
    tx
      .select({
        id: organizations.id,
        name: organizations.name,
        defaultLanguage: organizations.defaultLanguage,
        otherLanguages: organizations.otherLanguages,
      })
      .from(organizations)
      .where(eq(organizations.feedTokenHash, tokenHash))
      .limit(1),
  );
  return rows[0] ?? null;
}

export interface FeedTokenState {
  prefix: string | null;
  createdAt: Date | null;
}

export async function findTokenState(tx: Tx, organizationId: string): Promise<FeedTokenState | null> {
  const rows = await tx
    .select({ prefix: organizations.feedTokenPrefix, createdAt: organizations.feedTokenCreatedAt })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  return rows[0] ?? null;
}

/** Replaces (or with nulls, removes) the organization's feed token. */
export async function setToken(
  tx: Tx,
  organizationId: string,
  token: { hash: string; prefix: string } | null,
): Promise<void> {
  await tx
    .update(organizations)
    .set({
      feedTokenHash: token?.hash ?? null,
      feedTokenPrefix: token?.prefix ?? null,
      feedTokenCreatedAt: token ? sql`now()` : null,
    })
    .where(eq(organizations.id, organizationId));
}

/** The organization's portal version and when it last changed (migration 0024); version 0 before any. */
export async function portalVersion(
  tx: Tx,
  organizationId: string,
): Promise<{ version: string; changedAt: Date | null }> {
  const rows = await tx
    .select({
      version: sql<string>`${organizationCounters.value}::text`,
      changedAt: organizationCounters.changedAt,
    })
    .from(organizationCounters)
    .where(
      sql`${organizationCounters.organizationId} = ${organizationId} AND ${organizationCounters.name} = 'portal_version'`,
    )
    .limit(1);
  return rows[0] ?? { version: '0', changedAt: null };
}
