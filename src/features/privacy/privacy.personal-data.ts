// The personal data the privacy feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';

export const privacyPersonalData: PersonalData = {
  places: [
    {
      table: 'events',
      link: null,
      personal: ['data'],
      other: ['type', 'actor'],
      onErase: 'COPIES_REDACTED',
      note: 'The event log (EVENT_LOG_RETENTION_DAYS) and what pending webhook deliveries will send: every event that names the contact, its email or phone is rewritten without their data.',
    },
    {
      table: 'idempotency_keys',
      link: null,
      personal: ['response_body'],
      other: ['key', 'fingerprint', 'status', 'recovery_point', 'recovery_data'],
      onErase: 'COPIES_REDACTED',
      note:
        'Stored responses of the last 24 hours (sealed with SECRETS_KEY) are opened and rewritten without the person. ' +
        'A recovery point records ids only (recovery_data: the message a send stored).',
    },
  ],
};
