import type { Tx } from '../../db/database.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { handoverChanges, redacted, type ContactHandover } from '../contacts/index.ts';
import { AppointmentUpdated } from './appointments.events.ts';
import { eventAppointment, eventContact } from './appointments.service.ts';
import * as store from './appointments.store.ts';

/**
 * Hands a contact's appointments over (merge: to the target; erasure: to no one, notes redacted). The slots stay as they are. Records `appointment.updated` for each.
 */
export async function handOverAppointments(tx: Tx, handover: ContactHandover): Promise<number> {
  const { organizationId } = handover;
  const rows = await store.lockAppointmentsOfContact(tx, organizationId, handover.from);
  const contact = handover.to ? await store.findContactRef(tx, organizationId, handover.to) : null;
  for (const current of rows) {
    const { changes, values } = handoverChanges(handover, {
      notes: [current.notes, redacted(handover, current.notes)],
    });
    const row = await store.updateAppointment(tx, organizationId, current.id, {
      ...values,
      contactId: handover.to,
    });
    if (!row) continue;
    const agent = await store.findAgentRef(tx, organizationId, row.agentId);
    await recordEvent(tx, {
      type: AppointmentUpdated.type,
      data: { appointment: eventAppointment(row, agent), contact: eventContact(contact), changes },
      actor: handover.actor,
    });
  }
  return rows.length;
}
