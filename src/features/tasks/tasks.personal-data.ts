// The personal data the tasks feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';
import { handOverTasks } from './tasks.handover.ts';

export const tasksPersonalData: PersonalData = {
  places: [
    {
      table: 'tasks',
      link: 'contact_id',
      personal: ['title', 'description'],
      other: ['type', 'status'],
      onErase: 'UNLINKED_AND_REDACTED',
      note: 'Tasks stay without the contact, title and description redacted.',
    },
  ],
  handover: { name: 'tasks', run: handOverTasks },
};
