// The personal data the webhooks feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const webhooksPersonalData: PersonalData = {
  places: [
    {
      table: 'webhook_attempts',
      link: null,
      personal: ['response_body', 'response_headers', 'error'],
      other: ['request_headers'],
      onErase: 'COPIES_REDACTED',
      note: "Receivers' answers to deliveries of those events are dropped.",
    },
    {
      table: 'webhook_deliveries',
      link: null,
      personal: [],
      other: ['event_type', 'status', 'last_error'],
      onErase: 'NONE',
      note: 'Delivery state; the payload is the event, redacted above.',
    },
    {
      table: 'webhook_subscriptions',
      link: null,
      personal: [],
      other: ['url', 'event_types', 'description', 'secret', 'previous_secret', 'disabled_reason'],
      onErase: 'NONE',
      note: 'Endpoints.',
    },
  ],
};
