// The personal data the agents feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const agentsPersonalData: PersonalData = {
  places: [
    {
      table: 'agents',
      link: null,
      personal: [],
      other: ['first_name', 'last_name', 'email', 'phone', 'photo_url', 'bio', 'booking_slug', 'booking'],
      onErase: 'NONE',
      note: "The agency's staff.",
    },
  ],
};
