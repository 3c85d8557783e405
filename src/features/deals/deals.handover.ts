import type { Tx } from '../../db/database.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { handoverChanges, redacted, type ContactHandover } from '../contacts/index.ts';
import { DealUpdated } from './deals.events.ts';
import { toDeal } from './deals.service.ts';
import * as store from './deals.store.ts';

/**
 * Hands a contact's deals over (merge: to the target; erasure: to no one, with the title, the lost
 * reason and the lost reasons of the stage history redacted). Records `deal.updated` for each.
 */
export async function handOverDeals(tx: Tx, handover: ContactHandover): Promise<number> {
  const { organizationId } = handover;
  const rows = await store.lockDealsOfContact(tx, organizationId, handover.from);
  for (const { deal: current, stageName } of rows) {
    const { changes, values } = handoverChanges(handover, {
      title: [current.title, redacted(handover, current.title)],
      lostReason: [current.lostReason, redacted(handover, current.lostReason)],
    });
    const row = await store.updateDeal(tx, organizationId, current.id, { ...values, contactId: handover.to });
    if (!row) continue;
    await recordEvent(tx, {
      type: DealUpdated.type,
      data: { deal: toDeal(row, stageName), changes },
      actor: handover.actor,
    });
  }
  if (handover.redact)
    await store.rewriteStageHistoryReasons(
      tx,
      rows.map((row) => row.deal.id),
      handover.redact,
    );
  return rows.length;
}
