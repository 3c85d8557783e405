import type { Tx } from '../../db/database.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { rewriteStoredResponses } from '../../platform/idempotency/idempotency.rewrite.ts';
import { handOverAppointments } from '../appointments/index.ts';
import { lockContact, removeContactInTx, type ContactHandover } from '../contacts/index.ts';
import { handOverDeals } from '../deals/index.ts';
import { handOverTasks } from '../tasks/index.ts';
import { needlesOf, redactJson, redactText, type PersonIdentifiers } from './privacy.redact.ts';
import * as store from './privacy.store.ts';

/** What an erasure did, for its answer: how many records stayed without the person, copies rewritten. */
export interface Erasure {
  id: string;
  deleted: true;
  erased: { deals: number; tasks: number; appointments: number; events: number; storedResponses: number };
}

/**
 * Erases a person, in the caller's transaction (docs/privacy.md): their deals, tasks and
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
  const person: PersonIdentifiers = {
    contactId: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    phone: row.phone,
  };
  const needles = needlesOf(person);
  const redact = (text: string) => redactText(text, needles);
  const handover: ContactHandover = { organizationId, from: contactId, to: null, redact, actor };
  const deals = await handOverDeals(tx, handover);
  const tasks = await handOverTasks(tx, handover);
  const appointments = await handOverAppointments(tx, handover);

  // Copies are found by what identifies the person exactly: their id, email and phone.
  const exact = [person.contactId, person.email, person.phone].filter((value): value is string => !!value);
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
    erased: { deals, tasks, appointments, events: copies.length, storedResponses },
  };
}
