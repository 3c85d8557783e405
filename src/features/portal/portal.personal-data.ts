// The personal data the portal feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const portalPersonalData: PersonalData = {
  places: [
    {
      table: 'portal_settings',
      link: null,
      personal: [],
      other: ['agency_name', 'logo_url', 'colors', 'contact', 'social_links'],
      onErase: 'NONE',
      note: "The agency's own portal details.",
    },
  ],
};
