// The personal data the RESO feature's table holds, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const resoPersonalData: PersonalData = {
  places: [
    {
      table: 'reso_deletions',
      link: null,
      personal: [],
      other: ['code'],
      onErase: 'NONE',
      note: "Deleted listings' ids and codes, for RESO replicas: no person in them.",
    },
  ],
};
