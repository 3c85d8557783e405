import type { Database } from '../../db/database.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import { displayPrefix, generateKey, hashKey, type KeyMode, type KeyType } from '../../platform/auth/keys.ts';
import { KEY_TYPE_LIMITS, planRefusal } from '../../platform/auth/plans.ts';
import {
  PUBLISHABLE_SCOPES,
  READ_SCOPES,
  SCOPES,
  defaultScopesOf,
  heldScopes,
  type Scope,
} from '../../platform/auth/scopes.ts';
import { actorOf, inMode, type Caller } from '../../platform/auth/caller.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { isAgentOf } from '../agents/index.ts';
import { loadOrganization } from '../organizations/index.ts';
import { ApiKeyCreated, ApiKeyUpdated } from './api-keys.events.ts';
import type {
  AdminApiKey,
  CreateApiKeyBody,
  CreatedApiKey,
  ListApiKeysQuery,
  RollApiKeyBody,
  RolledApiKey,
  UpdateApiKeyBody,
} from './api-keys.schema.ts';
import * as store from './api-keys.store.ts';

export interface ApiKeysDeps {
  db: Database;
  /** Cleared after every key change, so this process sees it at once. */
  verifier: { invalidate(): void };
}

/**
 * 403 unless a key with `scopes` at `accessLevel` is within what `grantor` may grant: a credential
 * never makes or rolls one with more rights than it holds itself.
 */
function requireGrantable(grantor: Caller, scopes: readonly Scope[], accessLevel: number, doing: string) {
  const beyond = scopes.filter((scope) => !grantor.grants.scopes.includes(scope));
  if (beyond.length === 0 && accessLevel <= grantor.grants.accessLevel) return;
  const what = [
    ...(beyond.length > 0 ? [`the scopes ${beyond.join(', ')}`] : []),
    ...(accessLevel > grantor.grants.accessLevel ? [`access level ${accessLevel}`] : []),
  ].join(' and ');
  throw Errors.forbidden(
    `A ${grantor.credential.replaceAll('_', ' ')} cannot ${doing} a key with ${what}: only your operator can (support approval)`,
  );
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
    scopes: heldScopes(row.scopes, row.type, row.scopesFollowDefaults),
    scopesFollowDefaults: row.scopesFollowDefaults,
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
    scopes: heldScopes(row.scopes, row.type, row.scopesFollowDefaults),
    accessLevel: row.accessLevel,
    status: row.status,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
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
  deps: ApiKeysDeps,
  caller: Caller,
  body: CreateApiKeyBody,
): Promise<CreatedApiKey> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  const record = await loadOrganization(deps, organizationId);
  const isTwin = record.row.liveOrganizationId !== null;
  const mode: KeyMode = body.mode ?? (isTwin ? 'test' : 'live');
  if (isTwin && mode === 'live')
    throw Errors.invalidField('body.mode', 'must be test for a test organization');
  const live = isTwin ? await loadOrganization(deps, record.row.liveOrganizationId as string) : record;
  const actingId = mode === 'test' ? (isTwin ? record.row.id : record.testOrganizationId) : record.row.id;
  if (actingId === null) throw Errors.internal(new Error(`organization ${organizationId} has no test twin`));

  const type = body.type;
  const refusal = planRefusal(live.row.plan, type);
  if (refusal) throw Errors.invalidField('body.type', `is not available: ${refusal}`);
  const scopes = (body.scopes as Scope[] | undefined) ?? [...defaultScopesOf(type)];
  checkScopes(type, scopes);
  const accessLevel = body.accessLevel ?? 1;
  if (type === 'publishable' && accessLevel !== 1) {
    throw Errors.invalidField('body.accessLevel', 'must be 1 for a publishable key');
  }
  requireGrantable(caller, scopes, accessLevel, 'make');
  if (type === 'read_only_secret' && (body.writeLimitPerMinute ?? 0) > 0) {
    throw Errors.invalidField('body.writeLimitPerMinute', 'must be 0 for a read-only key');
  }
  const expiresAt = body.expiresAt === undefined ? null : new Date(body.expiresAt);
  if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
    throw Errors.invalidField('body.expiresAt', 'must be in the future');
  }

  const key = generateKey(type, mode);
  const row = await writeAs(deps.db, inMode(caller, actingId, mode === 'live'), async (tx) => {
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
      // Made with the defaults: it also gets the default scopes features add later (decision 0272).
      scopesFollowDefaults: body.scopes === undefined,
      accessLevel,
      expiresAt,
      rateLimitPerMinute: body.rateLimitPerMinute ?? null,
      writeLimitPerMinute: body.writeLimitPerMinute ?? null,
      agentId: body.agentId ?? null,
    });
    await recordEvent(tx, {
      type: ApiKeyCreated.type,
      data: { apiKey: eventKey(inserted) },
      actor,
    });
    return inserted;
  });
  return { ...toAdminApiKey(row), key };
}

/** A key by id (looked up across tenants, as a credential is); 404 too when it is not `caller`'s organization's. */
async function loadApiKey(deps: ApiKeysDeps, keyId: string, caller?: Caller): Promise<ApiKeyRow> {
  const row = isId(keyId, 'key') ? await deps.db.systemTx((tx) => store.findApiKeyById(tx, keyId)) : null;
  if (!row || (caller !== undefined && row.organizationId !== caller.organization.id))
    throw Errors.notFound('API key', keyId);
  return row;
}

/** One API key by id (never the key itself). */
export async function getApiKey(deps: ApiKeysDeps, keyId: string): Promise<AdminApiKey> {
  return toAdminApiKey(await loadApiKey(deps, keyId));
}

/** Keys of an organization: for a live organization, its test twin's keys too. */
export async function listApiKeys(deps: ApiKeysDeps, organizationId: string, query: ListApiKeysQuery) {
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
  deps: ApiKeysDeps,
  caller: Caller,
  keyId: string,
  body: UpdateApiKeyBody,
): Promise<AdminApiKey> {
  const actor = actorOf(caller);
  const current = await loadApiKey(deps, keyId, caller);
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
  Object.assign(changes, scopeChanges(caller, current, body));

  const updated = await writeAs(deps.db, caller, async (tx) => {
    const row = await store.updateApiKey(tx, current.organizationId, keyId, changes);
    if (!row) throw Errors.notFound('API key', keyId);
    await recordEvent(tx, {
      type: ApiKeyUpdated.type,
      data: { apiKey: eventKey(row), changes: Object.keys(changes) },
      actor,
    });
    return row;
  });
  deps.verifier.invalidate();
  return toAdminApiKey(updated);
}

/**
 * A PATCH's `scopes` and `scopesFollowDefaults` (decision 0272): named scopes are exact unless the same
 * change asks to follow the defaults; following stopped alone keeps what the key holds at that moment,
 * so nothing is taken away unasked. Refused (400) outside the key type's set, (403) beyond the caller's.
 */
function scopeChanges(
  caller: Caller,
  current: ApiKeyRow,
  body: UpdateApiKeyBody,
): Partial<Pick<store.NewApiKey, 'scopes' | 'scopesFollowDefaults'>> {
  if (body.scopes === undefined && body.scopesFollowDefaults === undefined) return {};
  const follows =
    body.scopesFollowDefaults ?? (body.scopes === undefined ? current.scopesFollowDefaults : false);
  const scopes =
    body.scopes ??
    (follows ? current.scopes : heldScopes(current.scopes, current.type, current.scopesFollowDefaults));
  checkScopes(current.type, scopes);
  requireGrantable(caller, heldScopes(scopes, current.type, follows), current.accessLevel, 'give');
  return { scopes, scopesFollowDefaults: follows };
}

/** The organization a key acts on (404 for an unknown key): the Idempotency-Key scope of a roll. */
export async function apiKeyOrganizationId(deps: ApiKeysDeps, keyId: string): Promise<string> {
  return (await loadApiKey(deps, keyId)).organizationId;
}

/**
 * Rolls a key (decision 0212): in one transaction, a new key with the old one's settings (type, mode,
 * organization, name, scopes, access level, limits, agent) and the old key's expiry set to the end
 * of the overlap (`overlapHours`, default 24; 0 = now; never later than an expiry it already had).
 * The new key keeps the old expiry when that falls after the overlap, else it has none. Refuses
 * (409) a deactivated or expired key, or a key type the plan no longer allows. Records
 * `api_key.created` for the new key and `api_key.updated` (`changes: ["expiresAt"]`) for the old.
 */
export async function rollApiKey(
  deps: ApiKeysDeps,
  caller: Caller,
  keyId: string,
  body: RollApiKeyBody,
): Promise<RolledApiKey> {
  const actor = actorOf(caller);
  const current = await loadApiKey(deps, keyId, caller);
  // The new key has the old one's rights: a console session cannot roll an operator-made key into one.
  requireGrantable(
    caller,
    heldScopes(current.scopes, current.type, current.scopesFollowDefaults),
    current.accessLevel,
    'roll',
  );
  const now = Date.now();
  if (current.status === 'deactivated') {
    throw Errors.conflict(`API key ${keyId} is deactivated: create a new key instead of rolling it`);
  }
  if (current.expiresAt !== null && current.expiresAt.getTime() <= now) {
    throw Errors.conflict(`API key ${keyId} has expired: create a new key instead of rolling it`);
  }
  const record = await loadOrganization(deps, current.organizationId);
  const live = record.row.liveOrganizationId
    ? await loadOrganization(deps, record.row.liveOrganizationId)
    : record;
  const refusal = planRefusal(live.row.plan, current.type);
  if (refusal) throw Errors.conflict(`API key ${keyId} cannot be rolled: ${refusal}`);

  const overlapEnd = new Date(now + (body.overlapHours ?? 24) * 3_600_000);
  const keepsExpiry = current.expiresAt !== null && current.expiresAt.getTime() > overlapEnd.getTime();
  // Rolling never lengthens the old key's life: an earlier expiry stays.
  const oldExpiresAt =
    current.expiresAt !== null && current.expiresAt.getTime() < overlapEnd.getTime()
      ? current.expiresAt
      : overlapEnd;

  const key = generateKey(current.type, current.mode);
  const { created, rolled } = await writeAs(deps.db, caller, async (tx) => {
    const rolledRow = await store.updateApiKey(tx, current.organizationId, keyId, {
      expiresAt: oldExpiresAt,
    });
    if (!rolledRow) throw Errors.notFound('API key', keyId);
    // Deactivated since it was read: the transaction rolls back, nothing is created.
    if (rolledRow.status === 'deactivated') throw Errors.conflict(`API key ${keyId} is deactivated`);
    const inserted = await store.insertApiKey(tx, current.organizationId, {
      id: newId('key'),
      type: current.type,
      mode: current.mode,
      keyHash: hashKey(key),
      keyPrefix: displayPrefix(key),
      name: current.name,
      scopes: current.scopes,
      scopesFollowDefaults: current.scopesFollowDefaults,
      accessLevel: current.accessLevel,
      expiresAt: keepsExpiry ? current.expiresAt : null,
      rateLimitPerMinute: current.rateLimitPerMinute,
      writeLimitPerMinute: current.writeLimitPerMinute,
      agentId: current.agentId,
    });
    await recordEvent(tx, { type: ApiKeyCreated.type, data: { apiKey: eventKey(inserted) }, actor });
    await recordEvent(tx, {
      type: ApiKeyUpdated.type,
      data: { apiKey: eventKey(rolledRow), changes: ['expiresAt'] },
      actor,
    });
    return { created: inserted, rolled: rolledRow };
  });
  deps.verifier.invalidate();
  return {
    key: { ...toAdminApiKey(created), key },
    rolledKey: { id: rolled.id, expiresAt: oldExpiresAt.toISOString() },
  };
}
