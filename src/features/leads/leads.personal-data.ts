// The personal data the leads feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const leadsPersonalData: PersonalData = {
  places: [
    {
      table: 'leads',
      link: 'contact_id',
      personal: ['message', 'interested_in', 'utm', 'referrer'],
      other: ['outcome', 'matched_on'],
      onErase: 'DELETED',
      note: 'Portal forms: message, interest, campaign parameters, the page they came from.',
    },
    {
      table: 'visit_requests',
      link: 'contact_id',
      personal: ['preferred_time', 'message', 'decline_reason'],
      other: ['status'],
      onErase: 'DELETED',
      note: 'Visit requests with their message and preferred time.',
    },
  ],
};
