// The personal data the analytics feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const analyticsPersonalData: PersonalData = {
  places: [
    {
      table: 'analytics_events',
      link: null,
      personal: [],
      other: ['type', 'referrer'],
      onErase: 'NONE',
      note: 'Anonymous portal page views: no contact, no IP address.',
    },
    { table: 'analytics_daily', link: null, personal: [], other: ['type'], onErase: 'NONE', note: 'Counts.' },
  ],
};
