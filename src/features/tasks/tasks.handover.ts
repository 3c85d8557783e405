import type { Tx } from '../../db/database.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { handoverChanges, redacted, type ContactHandover } from '../contacts/index.ts';
import { TaskUpdated } from './tasks.events.ts';
import { toTask } from './tasks.service.ts';
import * as store from './tasks.store.ts';

/**
 * Hands a contact's tasks over (merge: to the target; erasure: to no one, title and description
 * redacted). Records `task.updated` for each.
 */
export async function handOverTasks(tx: Tx, handover: ContactHandover): Promise<number> {
  const { organizationId } = handover;
  const rows = await store.lockTasksOfContact(tx, organizationId, handover.from);
  for (const current of rows) {
    const { changes, values } = handoverChanges(handover, {
      title: [current.title, redacted(handover, current.title)],
      description: [current.description, redacted(handover, current.description)],
    });
    const row = await store.updateTask(tx, organizationId, current.id, { ...values, contactId: handover.to });
    if (row)
      await recordEvent(tx, {
        type: TaskUpdated.type,
        data: { task: toTask(row), changes },
        actor: handover.actor,
      });
  }
  return rows.length;
}
