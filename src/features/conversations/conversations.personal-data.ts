// The personal data the conversations feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const conversationsPersonalData: PersonalData = {
  places: [
    {
      table: 'conversations',
      link: 'contact_id',
      personal: [],
      other: ['mode'],
      onErase: 'DELETED',
      note: 'The messaging conversation with the person.',
    },
    {
      table: 'messages',
      link: 'contact_id',
      personal: ['body', 'rendered_body', 'variables', 'failure_reason'],
      other: ['direction', 'type', 'status', 'usage'],
      onErase: 'DELETED',
      note: 'Messages in and out, with template variables.',
    },
  ],
};
