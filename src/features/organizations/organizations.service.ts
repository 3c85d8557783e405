import type { Database } from '../../db/database.ts';
import { PLAN_WRITE_LIMITS } from '../../platform/auth/plans.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import type {
  AdminOrganization,
  CreateOrganizationBody,
  ListOrganizationsQuery,
  UpdateOrganizationBody,
} from './organizations.schema.ts';
import * as store from './organizations.store.ts';

export type { OrganizationRecord } from './organizations.store.ts';

export interface OrganizationsDeps {
  db: Database;
  /** Cleared after every organization change, so this process sees it at once. */
  verifier: { invalidate(): void };
}

export function toAdminOrganization(record: store.OrganizationRecord): AdminOrganization {
  const { row } = record;
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    isActive: row.isActive,
    readOnly: row.readOnly,
    writeLimitPerMinute: row.writeLimitPerMinute,
    effectiveWriteLimitPerMinute: row.writeLimitPerMinute ?? PLAN_WRITE_LIMITS[row.plan],
    defaultCountry: row.defaultCountry,
    defaultCurrency: row.defaultCurrency,
    mcpMaskPersonalData: row.mcpMaskPersonalData,
    showPriceDrops: row.showPriceDrops,
    defaultLanguage: row.defaultLanguage,
    languages: [row.defaultLanguage, ...row.otherLanguages],
    livemode: row.liveOrganizationId === null,
    testOrganizationId: record.testOrganizationId,
    liveOrganizationId: row.liveOrganizationId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** An organization (live or twin) with its twin's id; 404 when the id is malformed or unknown. */
export async function loadOrganization(
  deps: Pick<OrganizationsDeps, 'db'>,
  organizationId: string,
): Promise<store.OrganizationRecord> {
  const record = isId(organizationId, 'org')
    ? await deps.db.systemTx((tx) => store.findOrganizationById(tx, organizationId))
    : null;
  if (!record) throw Errors.notFound('Organization', organizationId);
  return record;
}

/** Creates an organization and its test twin in one transaction. */
export async function createOrganization(
  deps: Pick<OrganizationsDeps, 'db'>,
  body: CreateOrganizationBody,
): Promise<AdminOrganization> {
  const id = newId('org');
  const twinId = newId('org');
  const common = {
    name: body.name,
    plan: body.plan,
    defaultCountry: body.defaultCountry ?? 'US',
    defaultCurrency: body.defaultCurrency ?? 'USD',
    writeLimitPerMinute: body.writeLimitPerMinute ?? null,
  };
  await deps.db.systemTx((tx) =>
    store.insertOrganizations(tx, [
      { id, ...common },
      { id: twinId, ...common, liveOrganizationId: id },
    ]),
  );
  return getOrganization(deps, id);
}

/** One organization (live or twin) by id; 404 when unknown. */
export async function getOrganization(
  deps: Pick<OrganizationsDeps, 'db'>,
  organizationId: string,
): Promise<AdminOrganization> {
  return toAdminOrganization(await loadOrganization(deps, organizationId));
}

/** Live organizations, newest first (twins appear as `testOrganizationId`). */
export async function listOrganizations(deps: Pick<OrganizationsDeps, 'db'>, query: ListOrganizationsQuery) {
  const page = pageRequest(query);
  const { items, total } = await deps.db.systemTx((tx) =>
    store.listLiveOrganizations(tx, { plan: query.plan, isActive: query.isActive }, page),
  );
  return { data: items.map(toAdminOrganization), meta: pageMeta(total, page) };
}

/**
 * Changes plan, activity, read-only state, limits or defaults. The twin follows its live
 * organization, so it is changed through the live one (400 otherwise). The change applies to
 * this process at once and to every other within the key cache time.
 */
export async function updateOrganization(
  deps: OrganizationsDeps,
  organizationId: string,
  body: UpdateOrganizationBody,
): Promise<AdminOrganization> {
  const record = await loadOrganization(deps, organizationId);
  if (record.row.liveOrganizationId !== null) {
    throw Errors.invalidField(
      'path.orgId',
      `is a test twin; change its live organization ${record.row.liveOrganizationId} instead`,
    );
  }
  const { languages, ...settings } = body;
  const defaultLanguage = body.defaultLanguage ?? record.row.defaultLanguage;
  // Stored without the default. A new default given alone leaves the other languages, and the old
  // default stays served among them (`languages` says otherwise).
  const otherLanguages =
    languages !== undefined || body.defaultLanguage !== undefined
      ? (languages ?? [record.row.defaultLanguage, ...record.row.otherLanguages]).filter(
          (language) => language !== defaultLanguage,
        )
      : undefined;
  const changes = { ...settings, otherLanguages };
  await deps.db.systemTx(async (tx) => {
    await store.updateOrganization(tx, organizationId, changes);
    // The twin mirrors the defaults, so test-mode forms read phone numbers and prices alike, and
    // the MCP masking (test keys act by the live setting; the twin's answer should say the same).
    const mirrored = {
      defaultCountry: body.defaultCountry,
      defaultCurrency: body.defaultCurrency,
      mcpMaskPersonalData: body.mcpMaskPersonalData,
      showPriceDrops: body.showPriceDrops,
      defaultLanguage: body.defaultLanguage,
      otherLanguages,
    };
    if (record.testOrganizationId && Object.values(mirrored).some((value) => value !== undefined)) {
      await store.updateOrganization(tx, record.testOrganizationId, mirrored);
    }
  });
  deps.verifier.invalidate();
  return getOrganization(deps, organizationId);
}

/** Deletes an organization; its twin, keys, events and records go with it (ON DELETE CASCADE). */
export async function deleteOrganization(db: Database, organizationId: string): Promise<void> {
  await db.systemTx((tx) => store.deleteOrganization(tx, organizationId));
}

/** How many organizations (live and twins) the database holds. */
export async function countOrganizations(db: Database): Promise<number> {
  return db.systemTx((tx) => store.countOrganizations(tx));
}
