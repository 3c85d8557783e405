// The personal data the consents feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const consentsPersonalData: PersonalData = {
  places: [
    {
      table: 'contact_consents',
      link: 'contact_id',
      personal: ['source'],
      other: ['channel', 'status', 'actor_kind'],
      onErase: 'DELETED',
      note: 'Consent history per channel.',
    },
  ],
};
