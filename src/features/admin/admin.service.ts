import type { Database, Tx } from '../../db/database.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import type { KeyVerifier } from '../../platform/auth/key-verifier.ts';
import { displayPrefix, generateKey, hashKey, type KeyMode, type KeyType } from '../../platform/auth/keys.ts';
import { KEY_TYPE_LIMITS, PLAN_WRITE_LIMITS, planRefusal, type Plan } from '../../platform/auth/plans.ts';
import {
  DEFAULT_SECRET_SCOPES,
  PUBLISHABLE_SCOPES,
  READ_SCOPES,
  SCOPES,
  isScope,
  type Scope,
} from '../../platform/auth/scopes.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { ApiKeyCreated, ApiKeyUpdated } from './admin.events.ts';
import type {
  AdminApiKey,
  AdminOrganization,
  CreateApiKeyBody,
  CreatedApiKey,
  CreateOrganizationBody,
  DemoSeed,
  ListApiKeysQuery,
  ListOrganizationsQuery,
  UpdateApiKeyBody,
  UpdateOrganizationBody,
} from './admin.schema.ts';
import * as store from './admin.store.ts';
import { createAgent, isAgentOf } from '../agents/agents.service.ts';
import type { CreateAgentBody } from '../agents/agents.schema.ts';
import { updatePortalSettings } from '../portal/portal.service.ts';
import { importProperties } from '../properties/properties-import.service.ts';
import { DEMO_AGENTS, DEMO_COUNTRY, DEMO_CURRENCY, DEMO_PORTAL, demoProperties } from './demo-data.ts';
import { seedDemoCrm } from './demo-crm.ts';
import { seedDemoConversations } from '../conversations/conversations-demo.ts';

export interface AdminDeps {
  db: Database;
  /** Cleared after every key or organization change, so this process sees it at once. */
  verifier: KeyVerifier;
}

/** Operator actions are recorded with a SYSTEM actor. */
const OPERATOR: Actor = { kind: 'SYSTEM', userId: null };

function toAdminOrganization(record: store.OrganizationRecord): AdminOrganization {
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
    livemode: row.liveOrganizationId === null,
    testOrganizationId: record.testOrganizationId,
    liveOrganizationId: row.liveOrganizationId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toAdminApiKey(row: ApiKeyRow): AdminApiKey {
  const defaults = KEY_TYPE_LIMITS[row.type];
  return {
    id: row.id,
    organizationId: row.organizationId,
    type: row.type,
    mode: row.mode,
    name: row.name,
    keyPrefix: row.keyPrefix,
    scopes: row.scopes.filter(isScope),
    accessLevel: row.accessLevel,
    status: row.status,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    rateLimitPerMinute: row.rateLimitPerMinute ?? defaults.requestsPerMinute,
    writeLimitPerMinute: row.writeLimitPerMinute ?? defaults.writesPerMinute,
    agentId: row.agentId,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function eventKey(row: ApiKeyRow) {
  return {
    id: row.id,
    type: row.type,
    mode: row.mode,
    name: row.name,
    keyPrefix: row.keyPrefix,
    scopes: row.scopes,
    accessLevel: row.accessLevel,
    status: row.status,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

async function loadOrganization(deps: AdminDeps, organizationId: string): Promise<store.OrganizationRecord> {
  const record = isId(organizationId, 'org')
    ? await deps.db.systemTx((tx) => store.findOrganizationById(tx, organizationId))
    : null;
  if (!record) throw Errors.notFound('Organization', organizationId);
  return record;
}

/** Creates an organization and its test twin in one transaction. */
export async function createOrganization(
  deps: AdminDeps,
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
export async function getOrganization(deps: AdminDeps, organizationId: string): Promise<AdminOrganization> {
  return toAdminOrganization(await loadOrganization(deps, organizationId));
}

/** Live organizations, newest first (twins appear as `testOrganizationId`). */
export async function listOrganizations(deps: AdminDeps, query: ListOrganizationsQuery) {
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
  deps: AdminDeps,
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
  await deps.db.systemTx(async (tx) => {
    await store.updateOrganization(tx, organizationId, body);
    // The twin mirrors the defaults, so test-mode forms read phone numbers and prices alike.
    if (
      record.testOrganizationId &&
      (body.defaultCountry !== undefined || body.defaultCurrency !== undefined)
    ) {
      await store.updateOrganization(tx, record.testOrganizationId, {
        defaultCountry: body.defaultCountry,
        defaultCurrency: body.defaultCurrency,
      });
    }
  });
  deps.verifier.invalidate();
  return getOrganization(deps, organizationId);
}

function defaultScopes(type: KeyType): readonly Scope[] {
  if (type === 'publishable') return PUBLISHABLE_SCOPES;
  if (type === 'read_only_secret') return READ_SCOPES;
  return DEFAULT_SECRET_SCOPES;
}

function checkScopes(type: KeyType, scopes: readonly Scope[]): void {
  const allowed: readonly Scope[] =
    type === 'publishable' ? PUBLISHABLE_SCOPES : type === 'read_only_secret' ? READ_SCOPES : SCOPES;
  const refused = scopes.filter((scope) => !allowed.includes(scope));
  if (refused.length > 0) {
    throw Errors.invalidField(
      'body.scopes',
      `${refused.join(', ')} cannot be granted to a ${type.replaceAll('_', ' ')} key (allowed: ${allowed.join(', ')})`,
    );
  }
}

/**
 * Creates an API key. Test-mode keys act on the twin. Refuses (400) a key type the plan does not
 * allow, scopes outside the key type's set, an access level above 1 for publishable keys, write
 * limits on read-only keys and an expiry in the past. The full key is returned only here.
 */
export async function createApiKey(
  deps: AdminDeps,
  organizationId: string,
  body: CreateApiKeyBody,
): Promise<CreatedApiKey> {
  const record = await loadOrganization(deps, organizationId);
  const isTwin = record.row.liveOrganizationId !== null;
  const mode: KeyMode = body.mode ?? (isTwin ? 'test' : 'live');
  if (isTwin && mode === 'live')
    throw Errors.invalidField('body.mode', 'must be test for a test organization');
  const live = isTwin ? await loadOrganization(deps, record.row.liveOrganizationId as string) : record;
  const actingId = mode === 'test' ? (isTwin ? record.row.id : record.testOrganizationId) : record.row.id;
  if (actingId === null) throw Errors.internal(new Error(`organization ${organizationId} has no test twin`));

  const type = body.type as KeyType;
  const refusal = planRefusal(live.row.plan as Plan, type);
  if (refusal) throw Errors.invalidField('body.type', `is not available: ${refusal}`);
  const scopes = (body.scopes as Scope[] | undefined) ?? [...defaultScopes(type)];
  checkScopes(type, scopes);
  const accessLevel = body.accessLevel ?? 1;
  if (type === 'publishable' && accessLevel !== 1) {
    throw Errors.invalidField('body.accessLevel', 'must be 1 for a publishable key');
  }
  if (type === 'read_only_secret' && (body.writeLimitPerMinute ?? 0) > 0) {
    throw Errors.invalidField('body.writeLimitPerMinute', 'must be 0 for a read-only key');
  }
  const expiresAt = body.expiresAt === undefined ? null : new Date(body.expiresAt);
  if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
    throw Errors.invalidField('body.expiresAt', 'must be in the future');
  }

  const key = generateKey(type, mode);
  const row = await deps.db.tenantTx(actingId, async (tx) => {
    // A bound agent sends the key's messages (DESIGN.md): it must be an agent of the acting organization.
    if (body.agentId !== undefined && !(await isAgentOf(tx, actingId, body.agentId))) {
      throw Errors.invalidField('body.agentId', 'does not name an agent of the organization the key acts on');
    }
    const inserted = await store.insertApiKey(tx, actingId, {
      id: newId('key'),
      type,
      mode,
      keyHash: hashKey(key),
      keyPrefix: displayPrefix(key),
      name: body.name ?? null,
      scopes,
      accessLevel,
      expiresAt,
      rateLimitPerMinute: body.rateLimitPerMinute ?? null,
      writeLimitPerMinute: body.writeLimitPerMinute ?? null,
      agentId: body.agentId ?? null,
    });
    await recordEvent(tx, {
      type: ApiKeyCreated.type,
      data: { apiKey: eventKey(inserted) },
      actor: OPERATOR,
    });
    return inserted;
  });
  return { ...toAdminApiKey(row), key };
}

async function loadApiKey(deps: AdminDeps, keyId: string): Promise<ApiKeyRow> {
  const row = isId(keyId, 'key') ? await deps.db.systemTx((tx) => store.findApiKeyById(tx, keyId)) : null;
  if (!row) throw Errors.notFound('API key', keyId);
  return row;
}

/** One API key by id (never the key itself). */
export async function getApiKey(deps: AdminDeps, keyId: string): Promise<AdminApiKey> {
  return toAdminApiKey(await loadApiKey(deps, keyId));
}

/** Keys of an organization: for a live organization, its test twin's keys too. */
export async function listApiKeys(deps: AdminDeps, organizationId: string, query: ListApiKeysQuery) {
  const record = await loadOrganization(deps, organizationId);
  const ids = [record.row.id, ...(record.testOrganizationId ? [record.testOrganizationId] : [])];
  const page = pageRequest(query);
  const { items, total } = await deps.db.systemTx((tx) =>
    store.listApiKeys(tx, ids, { status: query.status, type: query.type, mode: query.mode }, page),
  );
  return { data: items.map(toAdminApiKey), meta: pageMeta(total, page) };
}

/**
 * Suspends, reactivates or deactivates a key, or changes its expiry, name or limits.
 * Deactivation is final. Takes effect in this process at once, in others within the cache time.
 */
export async function updateApiKey(
  deps: AdminDeps,
  keyId: string,
  body: UpdateApiKeyBody,
): Promise<AdminApiKey> {
  const current = await loadApiKey(deps, keyId);
  if (current.status === 'deactivated' && body.status !== undefined && body.status !== 'deactivated') {
    throw Errors.invalidField('body.status', 'cannot change: a deactivated key stays deactivated');
  }
  if (current.type === 'read_only_secret' && (body.writeLimitPerMinute ?? 0) > 0) {
    throw Errors.invalidField('body.writeLimitPerMinute', 'must be 0 for a read-only key');
  }
  const changes: Partial<store.NewApiKey> = {};
  if (body.status !== undefined) changes.status = body.status as ApiKeyRow['status'];
  if (body.name !== undefined) changes.name = body.name;
  if (body.rateLimitPerMinute !== undefined) changes.rateLimitPerMinute = body.rateLimitPerMinute;
  if (body.writeLimitPerMinute !== undefined) changes.writeLimitPerMinute = body.writeLimitPerMinute;
  if (body.expiresAt !== undefined) {
    const expiresAt = body.expiresAt === null ? null : new Date(body.expiresAt);
    if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
      throw Errors.invalidField(
        'body.expiresAt',
        'must be in the future (deactivate the key to stop it now)',
      );
    }
    changes.expiresAt = expiresAt;
  }

  const updated = await deps.db.tenantTx(current.organizationId, async (tx) => {
    const row = await store.updateApiKey(tx, current.organizationId, keyId, changes);
    if (!row) throw Errors.notFound('API key', keyId);
    await recordEvent(tx, {
      type: ApiKeyUpdated.type,
      data: { apiKey: eventKey(row), changes: Object.keys(changes) },
      actor: OPERATOR,
    });
    return row;
  });
  deps.verifier.invalidate();
  return toAdminApiKey(updated);
}

export const DEMO_ORGANIZATION_NAME = 'Demo Realty';

/**
 * Creates the demo agency: "Demo Realty" (BUSINESS, Spain, EUR) with a publishable key, a secret
 * key that has every scope and access level 3, and its content (demo-data.ts) written through the
 * features' own services: 4 agents (2 bookable), portal settings, 150 properties, the CRM (demo-crm.ts)
 * and conversations over the sandbox messaging number (conversations-demo.ts).
 */
export async function seedDemo(deps: AdminDeps): Promise<DemoSeed> {
  const organization = await createOrganization(deps, {
    name: DEMO_ORGANIZATION_NAME,
    plan: 'BUSINESS',
    defaultCountry: DEMO_COUNTRY,
    defaultCurrency: DEMO_CURRENCY,
  });
  try {
    const publishable = await createApiKey(deps, organization.id, {
      type: 'publishable',
      name: 'Demo portal',
    });
    const secret = await createApiKey(deps, organization.id, {
      type: 'secret',
      name: 'Demo server',
      scopes: [...SCOPES],
      accessLevel: 3,
    });
    const agentIds = {} as Record<keyof typeof DEMO_AGENTS, string>;
    for (const [key, body] of Object.entries(DEMO_AGENTS) as [keyof typeof DEMO_AGENTS, CreateAgentBody][]) {
      agentIds[key] = (await createAgent(deps.db, organization.id, body)).id;
    }
    await updatePortalSettings(deps.db, organization.id, DEMO_PORTAL);
    const imported = await importProperties(deps.db, organization.id, demoProperties(agentIds));
    if (imported.failed > 0) throw new Error(`demo properties refused: ${JSON.stringify(imported.errors)}`);
    const { contactIds } = await seedDemoCrm(deps.db, organization.id, agentIds);
    await seedDemoConversations(deps.db, organization.id, contactIds);
    return { organization, publishableKey: publishable.key, secretKey: secret.key };
  } catch (error) {
    // The seed spans the organization's and the twin's transactions: leave no half-made agency.
    await deps.db.systemTx((tx) => store.deleteOrganization(tx, organization.id));
    throw error;
  }
}

export type DemoSeedResult = DemoSeed;

/** Seeds the demo agency only on an empty database (first start of the embedded default). */
export async function seedDemoIfEmpty(deps: AdminDeps): Promise<DemoSeed | null> {
  const existing = await deps.db.systemTx((tx) => store.countOrganizations(tx));
  return existing === 0 ? seedDemo(deps) : null;
}

/**
 * The organization an admin route under /organizations/{orgId}/ acts on, read inside that
 * tenant's transaction: 404 when the id is malformed or unknown. Gives the defaults (phone
 * country, currency) back-office writes fall back on. A twin carries its live organization's
 * defaults (they are copied at creation and changed together).
 */
export async function requireTenantOrganization(
  tx: Tx,
  organizationId: string,
): Promise<{ id: string; defaultCountry: string; defaultCurrency: string; livemode: boolean }> {
  const found = isId(organizationId, 'org') ? await store.findTenantDefaults(tx, organizationId) : null;
  if (!found) throw Errors.notFound('Organization', organizationId);
  return found;
}

/**
 * A back-office transaction on `organizationId` (admin routes under /organizations/{orgId}/): 404
 * when it is not an organization — checked before the id reaches the tenant setting — and the
 * organization's defaults handed to `work`.
 */
export async function inTenantOrganization<T>(
  db: Database,
  organizationId: string,
  work: (tx: Tx, organization: TenantOrganization) => Promise<T>,
): Promise<T> {
  if (!isId(organizationId, 'org')) throw Errors.notFound('Organization', organizationId);
  return db.tenantTx(organizationId, async (tx) =>
    work(tx, await requireTenantOrganization(tx, organizationId)),
  );
}

export type TenantOrganization = Awaited<ReturnType<typeof requireTenantOrganization>>;
