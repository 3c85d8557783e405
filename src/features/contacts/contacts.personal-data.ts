// The personal data the contacts feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const contactsPersonalData: PersonalData = {
  places: [
    {
      table: 'contacts',
      link: 'id',
      personal: [
        'first_name',
        'last_name',
        'email',
        'email_key',
        'phone',
        'preferred_city',
        'tags',
        'external_id',
        'search_text',
      ],
      other: ['code', 'source', 'status', 'type', 'preferred_type', 'currency', 'preferred_language'],
      onErase: 'DELETED',
      note: 'The person: names, email, phone, preferences, tags, the external id of the integrator.',
    },
  ],
};
