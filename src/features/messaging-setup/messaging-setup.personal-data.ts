// The personal data the messaging-setup feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const messagingSetupPersonalData: PersonalData = {
  places: [
    {
      table: 'message_templates',
      link: null,
      personal: [],
      other: ['name', 'language', 'category', 'body', 'variables', 'status'],
      onErase: 'NONE',
      note: 'Templates, with placeholders only.',
    },
    {
      table: 'messaging_numbers',
      link: null,
      personal: [],
      other: ['phone'],
      onErase: 'NONE',
      note: "The agency's own numbers.",
    },
  ],
};
