import type { Tx } from '../../db/database.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { isId } from '../../platform/ids/ids.ts';
import {
  absorbContactFields,
  CONSENT_SOURCES,
  findContactInTx,
  lockContact,
  readContactConsents,
  recomputeContactScore,
  recordConsent,
  removeContactInTx,
  type Contact,
  type ContactHandover,
} from '../contacts/index.ts';
import { ContactMerged } from './privacy.events.ts';
import { CONTACT_HANDOVERS, PERSONAL_DATA_PLACES } from '../../platform/privacy/personal-data.ts';
import * as store from './privacy.store.ts';

const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Places merged by their own rule rather than by moving rows (one conversation per contact; daily sums). */
const MERGED_APART = new Set(['contacts', 'conversations', 'usage_daily']);

/**
 * Merges `sourceId` into `targetId` in the caller's transaction: every record of the source (the
 * personal-data places the features declare: leads, visit requests, finder searches, notes, consents, messages,
 * usage; conversations and daily usage merged; deals, tasks and appointments handed over with their
 * events) moves to the target, the target's empty fields are filled from the source, the source is
 * removed (`contact.deleted`), and `contact.merged` is recorded. 404 for an unknown target, 400
 * naming `body.sourceContactId` for an unknown or identical source.
 */
export async function mergeContactsInTx(
  tx: Tx,
  organizationId: string,
  targetId: string,
  sourceId: string,
  actor: Actor,
): Promise<Contact> {
  if (!isId(targetId, 'ct') || !(await findContactInTx(tx, organizationId, targetId)))
    throw Errors.notFound('Contact', targetId);
  if (sourceId === targetId)
    throw Errors.invalidField('body.sourceContactId', 'must be another contact than the one merged into');
  if (!isId(sourceId, 'ct') || !(await findContactInTx(tx, organizationId, sourceId)))
    throw Errors.invalidField('body.sourceContactId', 'does not name a contact of this organization');
  // Both rows locked, in id order: two merges of the same pair in opposite directions cannot deadlock.
  const [first, second] = [targetId, sourceId].sort() as [string, string];
  const locked = new Map([
    [first, await lockContact(tx, organizationId, first)],
    [second, await lockContact(tx, organizationId, second)],
  ]);
  const target = locked.get(targetId);
  const source = locked.get(sourceId);
  if (!target || !source) throw Errors.notFound('Contact', targetId);

  const handover: ContactHandover = { organizationId, from: sourceId, to: targetId, redact: null, actor };
  const moved: Record<string, number> = {};
  for (const { name, run } of CONTACT_HANDOVERS) moved[name] = await run(tx, handover);
  for (const place of PERSONAL_DATA_PLACES) {
    if (place.link !== 'contact_id' || place.onErase !== 'DELETED' || MERGED_APART.has(place.table)) continue;
    moved[camel(place.table)] = await store.moveRows(tx, organizationId, place.table, sourceId, targetId);
  }
  moved.conversations = await store.mergeConversations(tx, organizationId, sourceId, targetId);
  moved.usageDaily = await store.mergeUsageDaily(tx, organizationId, sourceId, targetId);

  const { contact: absorbed, filled } = await absorbContactFields(tx, organizationId, target, source);
  // Both histories are the target's now: its newest MESSAGING statement must agree with the opt-out kept.
  const { current } = await readContactConsents(tx, organizationId, targetId);
  if (absorbed.optedOut && current.MESSAGING?.status !== 'REVOKED')
    await recordConsent(
      tx,
      organizationId,
      targetId,
      { channel: 'MESSAGING', status: 'REVOKED', source: CONSENT_SOURCES.merge },
      actor,
    );
  await removeContactInTx(tx, organizationId, sourceId, actor);
  await recomputeContactScore(tx, organizationId, targetId);
  const contact = (await findContactInTx(tx, organizationId, targetId)) as Contact;
  const counted = Object.fromEntries(Object.entries(moved).filter(([, count]) => count > 0));
  await recordEvent(tx, {
    type: ContactMerged.type,
    data: { contact, sourceContactId: sourceId, filled, moved: counted },
    actor,
  });
  return contact;
}
