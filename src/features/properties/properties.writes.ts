// The writes of a property, from the back office, the listing API and imports: one transaction each,
// with its events, its history (property_changes) and its lifecycle rules (properties.lifecycle.ts).
import type { Database, Tx } from '../../db/database.ts';
import type { PropertyRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { tombstoneOf } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import { isAgentOf } from '../agents/index.ts';
import { insertPropertyChanges, type NewPropertyChange } from './properties.changes.store.ts';
import {
  PropertyCreated,
  PropertyDeleted,
  PropertyPriceChanged,
  PropertyStatusChanged,
  PropertyUpdated,
} from './properties.events.ts';
import { checkStatusFits, checkStatusMove } from './properties.lifecycle.ts';
import { recordPortalRemoval } from './properties.removal.ts';
import type { AdminProperty, CreatePropertyBody, UpdatePropertyBody } from './properties.schema.ts';
import {
  eventProperty,
  loadListing,
  propertyColumns,
  toAdminProperty,
  writableOf,
} from './properties.service.ts';
import { photosToStore } from './properties.photos.rules.ts';
import * as store from './properties.store.ts';

/**
 * The history rows and events of a write: a PRICE row when the price or currency changed (or at
 * creation), a STATUS row when the status did, and `property.price_changed` / `property.status_changed`
 * for a change of an existing property. In the caller's transaction, after the write.
 */
export async function recordPropertyChanges(
  tx: Tx,
  before: PropertyRow | null,
  after: PropertyRow,
  actor: Actor,
): Promise<void> {
  const base = {
    organizationId: after.organizationId,
    propertyId: after.id,
    actorKind: actor.kind,
    actorUserId: actor.userId,
  };
  const priceMoved = before === null || before.price !== after.price || before.currency !== after.currency;
  const statusMoved = before === null || before.status !== after.status;
  const rows: NewPropertyChange[] = [];
  if (priceMoved) {
    const previousPrice = before?.price ?? null;
    rows.push({
      ...base,
      id: newId('pchg'),
      kind: 'PRICE',
      previousPrice,
      price: after.price,
      currency: after.currency,
    });
  }
  if (statusMoved) {
    const previousStatus = before?.status ?? null;
    rows.push({ ...base, id: newId('pchg'), kind: 'STATUS', previousStatus, status: after.status });
  }
  await insertPropertyChanges(tx, rows);
  if (before === null) return;
  const property = eventProperty(after);
  if (priceMoved) {
    await recordEvent(tx, {
      type: PropertyPriceChanged.type,
      data: { property, previousPrice: before.price, price: after.price },
      actor,
    });
  }
  if (statusMoved) {
    await recordEvent(tx, {
      type: PropertyStatusChanged.type,
      data: { property, previousStatus: before.status, status: after.status },
      actor,
    });
  }
}

async function checkAgent(tx: Tx, organizationId: string, agentId: string | null | undefined) {
  if (agentId === null || agentId === undefined) return;
  if (!(await isAgentOf(tx, organizationId, agentId))) {
    throw Errors.invalidField('body.agentId', 'does not name an agent of this organization');
  }
}

/** A parallel write took the code between the update's check and its commit. */
function codeConflict(code: string | undefined) {
  return {
    properties_organization_id_code_key: `A property with code ${code} already exists in this organization`,
  };
}

/**
 * Creates a property, recorded as the caller's (SYSTEM for the back office, API for a key); 409
 * DUPLICATE when its code is taken, 400 for an unknown agent.
 */
export async function createProperty(
  db: Database,
  caller: Caller,
  body: CreatePropertyBody,
): Promise<AdminProperty> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(db, caller, async (tx, organization) => {
    await checkAgent(tx, organizationId, body.agentId);
    checkStatusFits(body.status ?? 'ACTIVE', body.transactionType);
    // A new listing has no photos to keep: an `id` in `photos` is a 400, upload fields are dropped.
    const input = body.photos === undefined ? body : { ...body, photos: photosToStore([], body.photos) };
    const row = await store.insertProperty(tx, {
      id: newId('prop'),
      organizationId,
      ...propertyColumns(input, organization),
    });
    if (!row) {
      const existing = await store.findPropertyByCode(tx, organizationId, body.code);
      throw Errors.duplicate(`A property with code ${body.code} already exists in this organization`, {
        existingId: existing?.id ?? null,
      });
    }
    await recordEvent(tx, {
      type: PropertyCreated.type,
      data: { property: eventProperty(row) },
      actor,
    });
    await recordPropertyChanges(tx, null, row, actor);
    return toAdminProperty(await loadListing(tx, organizationId, row.id));
  });
}

/**
 * Changes some fields of a property, recorded as the caller's; derived columns follow. 404 outside
 * the organization.
 */
export async function updateProperty(
  db: Database,
  caller: Caller,
  propertyId: string,
  body: UpdatePropertyBody,
): Promise<AdminProperty> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(
    db,
    caller,
    async (tx, organization) => {
      const current = await loadListing(tx, organizationId, propertyId, { lock: true });
      if (body.agentId !== undefined) await checkAgent(tx, organizationId, body.agentId);
      const merged = { ...writableOf(current.property), ...body } as CreatePropertyBody;
      // A new visibility starts from its default precision, and `approximateLocation` alone sets it.
      if (body.addressVisibility !== undefined || body.approximateLocation !== undefined) {
        if (body.addressVisibility === undefined) delete merged.addressVisibility;
        if (body.coordinatePrecision === undefined) merged.coordinatePrecision = null;
      }
      // Uploaded photos the new list names (by id or URL) keep their files; decision 0233.
      if (body.photos !== undefined) merged.photos = photosToStore(current.property.photos, body.photos);
      const status = merged.status ?? 'ACTIVE';
      checkStatusMove(current.property.status, status);
      if (body.status !== undefined || body.transactionType !== undefined) {
        checkStatusFits(status, merged.transactionType);
      }
      const row = await store.updateProperty(
        tx,
        organizationId,
        propertyId,
        propertyColumns(merged, organization),
      );
      if (!row) throw Errors.notFound('Property', propertyId);
      await recordEvent(tx, {
        type: PropertyUpdated.type,
        data: { property: eventProperty(row), changes: Object.keys(body).sort() },
        actor,
      });
      await recordPropertyChanges(tx, current.property, row, actor);
      await recordPortalRemoval(tx, current.property, row, actor);
      return toAdminProperty(await loadListing(tx, organizationId, propertyId));
    },
    codeConflict(body.code),
  );
}

/** Deletes a property, recorded as the caller's; its leads and appointments keep their history without it. */
export async function deleteProperty(
  db: Database,
  caller: Caller,
  propertyId: string,
): Promise<{ id: string; deleted: true }> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(db, caller, async (tx) => {
    const row = isId(propertyId, 'prop') ? await store.deleteProperty(tx, organizationId, propertyId) : null;
    if (!row) throw Errors.notFound('Property', propertyId);
    await recordEvent(tx, {
      type: PropertyDeleted.type,
      data: { property: tombstoneOf(row.id) },
      actor,
    });
    await recordPortalRemoval(tx, row, null, actor);
    return { id: propertyId, deleted: true as const };
  });
}
