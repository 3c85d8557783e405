// The personal data the usage feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const usagePersonalData: PersonalData = {
  places: [
    {
      table: 'usage_events',
      link: 'contact_id',
      personal: ['name', 'label', 'props', 'company_id', 'actor_label'],
      other: [],
      onErase: 'DELETED',
      note: 'Product usage detail (kept USAGE_DETAIL_RETENTION_DAYS).',
    },
    {
      table: 'usage_daily',
      link: 'contact_id',
      personal: ['name'],
      other: [],
      onErase: 'DELETED',
      note: 'Daily usage totals per event name.',
    },
  ],
};
