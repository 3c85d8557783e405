import { Type, type Static } from '@fastify/type-provider-typebox';
import { DateOrDateTime } from '../../platform/http/dates.ts';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, Nullable, ref, StringEnum } from '../../platform/http/schemas.ts';
import { EMAIL_KINDS, EMAIL_STATUSES } from './email.kinds.ts';

export const EMAIL_TRANSPORTS = ['SMTP', 'SANDBOX'] as const;

const EmailFields = {
  id: Type.String({ description: 'eml_… identifier' }),
  kind: StringEnum(EMAIL_KINDS, {
    description:
      'What it says: a visit confirmation, update, cancellation or reminder, or an alert to the agent',
  }),
  refId: Type.String({ description: 'The appointment (apt_…), lead (lead_…) or visit request (vr_…)' }),
  revision: Type.Integer({
    minimum: 0,
    description: 'Which change of the appointment (its SEQUENCE); 0 otherwise',
  }),
  status: StringEnum(EMAIL_STATUSES, {
    description:
      'QUEUED (waits its turn), SENDING, SENT (handed to the mail server or kept in the sandbox), FAILED (every ' +
      'retry failed), SKIPPED (not sent: `reason` says why) or BOUNCED (the mail system reported it)',
  }),
  reason: Nullable(Type.String({ description: 'Why SKIPPED, FAILED or BOUNCED' })),
  contactId: Nullable(Type.String({ description: 'The visitor, or the person an alert is about' })),
  to: Nullable(Type.String({ description: 'The address; null until the email is composed' })),
  language: Nullable(Type.String({ description: 'ISO 639-1' })),
  subject: Nullable(Type.String()),
  transport: Nullable(StringEnum(EMAIL_TRANSPORTS, { description: 'Where it went' })),
  attempts: Type.Integer({ minimum: 0, description: 'Sends started' }),
  messageId: Type.String({
    description: 'The Message-ID it is sent with: `<id@domain of the sender address>`',
  }),
  createdAt: DateTime({ description: 'When the change that calls for it was made' }),
  sentAt: Nullable(DateTime()),
};

export const EmailSchema = Type.Object(EmailFields, {
  $id: 'Email',
  additionalProperties: false,
  description: 'An email of the log (its bodies: GET /v1/emails/{id})',
});
export type Email = Static<typeof EmailSchema>;

export const EmailDetailSchema = Type.Object(
  {
    ...EmailFields,
    text: Nullable(Type.String({ description: 'The plain-text body, as sent' })),
    html: Nullable(Type.String({ description: 'The HTML body, as sent' })),
    icsMethod: Nullable(
      StringEnum(['REQUEST', 'CANCEL'] as const, {
        description: 'The attached invitation (.ics) of a visit email: REQUEST or CANCEL; null without one',
      }),
    ),
  },
  { $id: 'EmailDetail', additionalProperties: false },
);
export type EmailDetail = Static<typeof EmailDetailSchema>;

export const ListEmailsQuerySchema = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(StringEnum(EMAIL_STATUSES, { description: 'Only emails in this status' })),
    kind: Type.Optional(StringEnum(EMAIL_KINDS, { description: 'Only emails of this kind' })),
    contactId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Emails to or about this contact' }),
    ),
    createdAfter: Type.Optional(DateOrDateTime('createdAt at or after (a date means its start, UTC)')),
    createdBefore: Type.Optional(DateOrDateTime('createdAt strictly before (a date means its start, UTC)')),
  },
  { additionalProperties: false },
);
export type ListEmailsQuery = Static<typeof ListEmailsQuerySchema>;

export const EmailListResponseSchema = ListOf(ref(EmailSchema));
export const EmailDetailResponseSchema = DataOf(ref(EmailDetailSchema));
export const EmailIdParamsSchema = Type.Object(
  { id: Type.String({ maxLength: 64, description: 'eml_… identifier' }) },
  { additionalProperties: false },
);

export const emailLogSchemas = [EmailSchema, EmailDetailSchema];
