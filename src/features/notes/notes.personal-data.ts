// The personal data the notes feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const notesPersonalData: PersonalData = {
  places: [
    {
      table: 'contact_notes',
      link: 'contact_id',
      personal: ['body'],
      other: [],
      onErase: 'DELETED',
      note: 'Notes written about the person.',
    },
  ],
};
