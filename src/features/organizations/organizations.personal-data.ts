// The personal data the organizations feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const organizationsPersonalData: PersonalData = {
  places: [
    {
      table: 'organization_counters',
      link: null,
      personal: [],
      other: ['name'],
      onErase: 'NONE',
      note: 'Counters.',
    },
    {
      table: 'organizations',
      link: null,
      personal: [],
      other: [
        'name',
        'plan',
        'default_country',
        'default_currency',
        'default_language',
        'other_languages',
        'feed_token_hash',
        'feed_token_prefix',
        'timezone',
        'holiday_country',
        'holiday_region',
        'reminder_offsets_minutes',
        'reminder_channels',
      ],
      onErase: 'NONE',
      note: 'The agencies (the feed token only as its hash and first characters).',
    },
  ],
};
