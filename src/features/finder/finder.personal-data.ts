// The personal data the finder feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const finderPersonalData: PersonalData = {
  places: [
    {
      table: 'finder_searches',
      link: 'contact_id',
      personal: ['criteria', 'property_ids'],
      other: [],
      onErase: 'DELETED',
      note: 'What the person searched for in the guided finder and what they were shown.',
    },
  ],
};
