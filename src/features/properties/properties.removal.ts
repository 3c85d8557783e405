import type { Tx } from '../../db/database.ts';
import { tombstoneOf, type Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { PropertyRemoved, type PortalRemovalReason } from './properties.events.ts';

/** What decides whether the portal shows a property (PORTAL_VISIBLE in db/schema). */
export interface PortalState {
  id: string;
  status: string;
  publishedOnPortal: boolean;
}

const onPortal = (state: PortalState) => state.status === 'ACTIVE' && state.publishedOnPortal;

/** Why a change takes a property off the portal (`after` null: deleted), or null when it does not. */
export function portalRemovalReason(
  before: PortalState,
  after: PortalState | null,
): PortalRemovalReason | null {
  if (!onPortal(before)) return null;
  if (!after) return 'DELETED';
  if (after.status !== 'ACTIVE') return 'DEACTIVATED';
  if (!after.publishedOnPortal) return 'UNPUBLISHED';
  return null;
}

/**
 * Records `property.removed` in the change's transaction when the change takes the property off the
 * portal: what a portal mirror (cursor sync of GET /v1/properties) needs to drop its copy.
 */
export async function recordPortalRemoval(
  tx: Tx,
  before: PortalState,
  after: PortalState | null,
  actor: Actor,
): Promise<void> {
  const reason = portalRemovalReason(before, after);
  if (!reason) return;
  await recordEvent(tx, {
    type: PropertyRemoved.type,
    data: { property: { ...tombstoneOf(before.id), reason } },
    actor,
  });
}
