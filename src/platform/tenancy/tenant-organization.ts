import { eq } from 'drizzle-orm';
import type { Database, Tx } from '../../db/database.ts';
import { databaseError, EXCLUSION_VIOLATION, UNIQUE_VIOLATION } from '../../db/errors.ts';
import { organizations } from '../../db/schema.ts';
import { Errors } from '../errors/errors.ts';
import { isId } from '../ids/ids.ts';

/** The organization a tenant transaction acts on, with the defaults back-office writes fall back on. */
export interface TenantOrganization {
  id: string;
  /** ISO country of phone numbers written without a country code. */
  defaultCountry: string;
  defaultCurrency: string;
  /** The language of listings' own title and description (their translations hold the others). */
  defaultLanguage: string;
  /** IANA time zone: agents' booking hours default to it (issue 26). */
  timezone: string;
  livemode: boolean;
}

/**
 * Constraint name -> the 409 DUPLICATE message of a unique or exclusion violation: a parallel write
 * committed the same value between a transaction's own check and its commit.
 */
export type ConflictMessages = Readonly<Record<string, string>>;

/**
 * The organization an admin route under /organizations/{orgId}/ acts on, read inside that tenant's
 * transaction (RLS shows no other): 404 when the id is malformed or unknown. A twin carries its live
 * organization's defaults (they are copied at creation and changed together).
 */
export async function requireTenantOrganization(tx: Tx, organizationId: string): Promise<TenantOrganization> {
  const rows = isId(organizationId, 'org')
    ? await tx
        .select({
          id: organizations.id,
          defaultCountry: organizations.defaultCountry,
          defaultCurrency: organizations.defaultCurrency,
          defaultLanguage: organizations.defaultLanguage,
          timezone: organizations.timezone,
          liveOrganizationId: organizations.liveOrganizationId,
        })
        .from(organizations)
        .where(eq(organizations.id, organizationId))
        .limit(1)
    : [];
  const row = rows[0];
  if (!row) throw Errors.notFound('Organization', organizationId);
  return {
    id: row.id,
    defaultCountry: row.defaultCountry,
    defaultCurrency: row.defaultCurrency,
    defaultLanguage: row.defaultLanguage,
    timezone: row.timezone,
    livemode: row.liveOrganizationId === null,
  };
}

/**
 * The one back-office tenant transaction (admin routes under /organizations/{orgId}/, live or test
 * twin): 404 when `organizationId` is not an organization — checked before the id reaches the tenant
 * setting — then `work` with the organization's defaults. Unique and exclusion violations of the
 * constraints named in `conflicts` become 409 DUPLICATE with their message.
 */
export async function inTenantOrganization<T>(
  db: Database,
  organizationId: string,
  work: (tx: Tx, organization: TenantOrganization) => Promise<T>,
  conflicts: ConflictMessages = {},
): Promise<T> {
  if (!isId(organizationId, 'org')) throw Errors.notFound('Organization', organizationId);
  try {
    return await db.tenantTx(organizationId, async (tx) =>
      work(tx, await requireTenantOrganization(tx, organizationId)),
    );
  } catch (error) {
    throw conflictOf(error, conflicts) ?? error;
  }
}

/** The 409 DUPLICATE a unique or exclusion violation of a constraint in `conflicts` stands for. */
export function conflictOf(error: unknown, conflicts: ConflictMessages): Error | null {
  const failure = databaseError(error);
  if (failure?.code !== UNIQUE_VIOLATION && failure?.code !== EXCLUSION_VIOLATION) return null;
  const message =
    failure.constraint !== null && Object.hasOwn(conflicts, failure.constraint)
      ? conflicts[failure.constraint]
      : undefined;
  return message === undefined ? null : Errors.duplicate(message);
}
