// The personal data the properties feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const propertiesPersonalData: PersonalData = {
  places: [
    {
      table: 'properties',
      link: null,
      personal: [],
      other: [
        'code',
        'title',
        'description',
        'transaction_type',
        'type',
        'status',
        'currency',
        'city',
        'neighborhood',
        'address',
        'address_visibility',
        'translations',
        'zip_code',
        'amenities',
        'photos',
        'internal_notes',
        'custom_fields',
        'search_city',
        'search_neighborhood',
        'search_text',
      ],
      onErase: 'NONE',
      note: 'Listings (an owner is not a contact of the CRM yet).',
    },
    {
      table: 'property_changes',
      link: null,
      personal: [],
      other: ['kind', 'previous_status', 'status', 'currency', 'actor_kind', 'actor_user_id'],
      onErase: 'NONE',
      note: "A listing's price and status history: no person in it (the actor is an agent's id).",
    },
    {
      table: 'photo_probes',
      link: null,
      personal: [],
      other: ['property_id', 'last_error'],
      onErase: 'NONE',
      note: "The queue of listings whose photos' addresses are to be asked their media type (decision 0266).",
    },
  ],
};
