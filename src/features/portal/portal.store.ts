import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { organizations, portalSettings, type PortalSettingsRow } from '../../db/schema.ts';

export interface PortalRecord {
  organization: {
    id: string;
    name: string;
    defaultCountry: string;
    defaultCurrency: string;
    defaultLanguage: string;
    otherLanguages: string[];
    livemode: boolean;
  };
  settings: PortalSettingsRow | null;
}

/** The organization (its own row: RLS shows no other) with its portal settings, if any. */
export async function findPortal(tx: Tx, organizationId: string): Promise<PortalRecord | null> {
  const rows = await tx
    .select({
      organization: {
        id: organizations.id,
        name: organizations.name,
        defaultCountry: organizations.defaultCountry,
        defaultCurrency: organizations.defaultCurrency,
        defaultLanguage: organizations.defaultLanguage,
        otherLanguages: organizations.otherLanguages,
        livemode: sql<boolean>`${organizations.liveOrganizationId} IS NULL`,
      },
      settings: portalSettings,
    })
    .from(organizations)
    .leftJoin(portalSettings, eq(portalSettings.organizationId, organizations.id))
    .where(eq(organizations.id, organizationId))
    .limit(1);
  return rows[0] ?? null;
}

export async function upsertPortalSettings(
  tx: Tx,
  organizationId: string,
  values: Omit<typeof portalSettings.$inferInsert, 'organizationId'>,
): Promise<void> {
  await tx
    .insert(portalSettings)
    .values({ organizationId, ...values })
    .onConflictDoUpdate({ target: portalSettings.organizationId, set: { ...values, updatedAt: sql`now()` } });
}

/**
 * Sets the defaults of a live organization and its test twin together (system transaction: the
 * twin is another tenant). False when `organizationId` is not a live organization.
 */
export async function updateOrganizationDefaults(
  tx: Tx,
  organizationId: string,
  defaults: { defaultCountry?: string; defaultCurrency?: string },
): Promise<boolean> {
  const rows = await tx
    .update(organizations)
    .set({ ...defaults, updatedAt: new Date() })
    .where(
      sql`(${organizations.id} = ${organizationId} AND ${organizations.liveOrganizationId} IS NULL)
          OR ${organizations.liveOrganizationId} = ${organizationId}`,
    )
    .returning({ id: organizations.id });
  return rows.some((row) => row.id === organizationId);
}
