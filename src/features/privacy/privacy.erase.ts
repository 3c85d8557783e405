import type { Tx } from '../../db/database.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { rewriteStoredResponses } from '../../platform/idempotency/idempotency.rewrite.ts';
import { CONTACT_HANDOVERS } from '../../platform/privacy/personal-data.ts';
import { lockContact, removeContactInTx, type ContactHandover } from '../contacts/index.ts';
import {
  exactValuesOf,
  needlesOfAll,
  personOfCopy,
  redactJson,
  redactText,
  type PersonIdentifiers,
} from './privacy.redact.ts';
import * as store from './privacy.store.ts';

/** What an erasure did, for its answer: how many records stayed without the person, copies rewritten. */
export interface Erasure {
  id: string;
  deleted: true;
  erased: { deals: number; tasks: number; appointments: number; events: number; storedResponses: number };
}

/**
 * Erases a person, in the caller's transaction (docs/privacy.md), together with every contact ever
 * merged into them (transitively, by the values each had before its merge): their deals, tasks and
 * appointments stay with the link cut and the person redacted from their texts (each records its
 * `*.updated`); every event naming them (the event log, and what pending webhook deliveries will
 * send) and every stored idempotent response is rewritten without their data; then the contact row
 * goes with what cascades from it (leads, visit requests, finder searches, notes, consents,
 * conversations and messages, usage), and `contact.deleted` is recorded as a tombstone.
 */
export async function eraseContactInTx(
  tx: Tx,
  secrets: SecretBox,
  organizationId: string,
  contactId: string,
  actor: Actor,
): Promise<Erasure> {
  const row = await lockContact(tx, organizationId, contactId);
  // The person is also every contact ever merged into them, as each was before the merge: their own
  // events are the only copies of those values left (docs/decisions/0244-erasure-follows-merges.md).
  const mergedIds = await store.contactsMergedInto(tx, organizationId, contactId);
  const versions = await store.contactVersionsInEvents(tx, organizationId, mergedIds);
  const people: PersonIdentifiers[] = [
    {
      contactId: row.id,
      firstName: row.firstName,
      lastName: row.lastName,
      email: row.email,
      phone: row.phone,
    },
    ...mergedIds.map((id) => ({ contactId: id, firstName: '', lastName: '', email: null, phone: null })),
    ...versions.map(personOfCopy),
  ];
  const needles = needlesOfAll(people);
  const redact = (text: string) => redactText(text, needles);
  const handover: ContactHandover = { organizationId, from: contactId, to: null, redact, actor };
  const handedOver: Record<string, number> = {};
  for (const { name, run } of CONTACT_HANDOVERS) handedOver[name] = await run(tx, handover);

  // Copies are found by what identifies the person exactly: the ids, emails and phones of every version.
  const exact = exactValuesOf(people);
  const copies = await store.eventsMentioning(tx, organizationId, exact);
  for (const event of copies)
    await store.rewriteEvent(
      tx,
      organizationId,
      event.id,
      redactJson(event.data, needles) as Record<string, unknown>,
    );
  const storedResponses = await rewriteStoredResponses(tx, secrets, organizationId, (body) => {
    if (!exact.some((value) => body.includes(value))) return body;
    try {
      return JSON.stringify(redactJson(JSON.parse(body), needles));
    } catch {
      return redact(body);
    }
  });

  await removeContactInTx(tx, organizationId, contactId, actor);
  return {
    id: contactId,
    deleted: true,
    erased: {
      deals: handedOver.deals ?? 0,
      tasks: handedOver.tasks ?? 0,
      appointments: handedOver.appointments ?? 0,
      events: copies.length,
      storedResponses,
    },
  };
}
