// The events of email (issue 41): sent, failed for good, bounced. Recorded in the transaction that
// settles the email, so the log and the events never disagree.
import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';
import { Nullable, StringEnum } from '../../platform/http/schemas.ts';
import { EMAIL_KINDS } from './email.kinds.ts';

const EmailPayload = Type.Object(
  {
    id: Type.String({ description: 'eml_… identifier; the Message-ID is `<id@sender domain>`' }),
    kind: StringEnum(EMAIL_KINDS),
    refId: Type.String({ description: 'The appointment (apt_…), lead (lead_…) or visit request (vr_…)' }),
    contactId: Nullable(Type.String()),
    to: Type.String({ description: 'The address it was sent to' }),
    messageId: Type.String(),
    status: Type.String(),
    reason: Nullable(Type.String()),
    attempts: Type.Integer(),
  },
  { additionalProperties: false },
);

const example = {
  id: 'eml_0VhJ3kQ2Zt8mX1pR4sT6uB',
  kind: 'VISIT_CONFIRMATION' as const,
  refId: 'apt_0VhJ3kQ2Zt8mX1pR4sT6uB',
  contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
  to: 'marta@example.com',
  messageId: '<eml_0VhJ3kQ2Zt8mX1pR4sT6uB@costa-homes.example>',
  status: 'SENT',
  reason: null,
  attempts: 1,
};

export const EmailSent = defineEvent({
  type: 'email.sent',
  description:
    'An email was handed to the mail server (or, in test mode and development, kept in the sandbox): ' +
    'a visit confirmation, update, cancellation or reminder to the visitor, or an alert to the agent.',
  schema: Type.Object({ email: EmailPayload }, { additionalProperties: false }),
  example: { email: example },
});

export const EmailFailed = defineEvent({
  type: 'email.failed',
  description:
    'An email could not be sent after every retry (`reason` is the last error): it is not tried again.',
  schema: Type.Object({ email: EmailPayload }, { additionalProperties: false }),
  example: {
    email: { ...example, status: 'FAILED', reason: '421 4.7.0 Try again later', attempts: 6 },
  },
});

export const EmailBounced = defineEvent({
  type: 'email.bounced',
  description:
    'The mail system reported that a sent email bounced (POST /hooks/email/bounces). A permanent bounce ' +
    'makes the address undeliverable: nothing more is sent to it until the contact has another address.',
  schema: Type.Object(
    {
      email: EmailPayload,
      bounce: Type.Object(
        { permanent: Type.Boolean(), reason: Nullable(Type.String()) },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  example: {
    email: { ...example, status: 'BOUNCED' },
    bounce: { permanent: true, reason: '550 5.1.1 mailbox unknown' },
  },
});
