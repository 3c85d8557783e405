import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';
import { StringEnum } from '../../platform/http/schemas.ts';
import { ContactSchema, exampleContact } from '../contacts/index.ts';
import {
  MESSAGE_STATUSES,
  MessageAgentSchema,
  MessageSchema,
  MessageUsageSchema,
  type Message,
} from './conversations.schema.ts';

// Payloads inline every schema (no $ref): the catalog serves them to integrators as they are.
const inline = <T extends { properties: object }>(schema: T) =>
  Type.Object({ ...schema.properties }, { additionalProperties: false });
const MessagePayload = Type.Object(
  {
    ...MessageSchema.properties,
    agent: Type.Union([inline(MessageAgentSchema), Type.Null()]),
    usage: Type.Union([inline(MessageUsageSchema), Type.Null()]),
  },
  { additionalProperties: false },
);
const ContactPayload = inline(ContactSchema);

const sentExample: Message = {
  id: 'msg_0VhJ3kQ2Zt8mX1pR4sT6uM',
  chatMessageId: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3AA==',
  channel: 'MESSAGING',
  direction: 'OUTBOUND',
  type: 'TEMPLATE',
  body: 'Hi {{name}}, the flat on {{street}} is still available. Shall we book a visit?',
  renderedBody: 'Hi Lucía, the flat on Calle Larios is still available. Shall we book a visit?',
  status: 'SENT',
  timestamp: '2026-11-03T09:30:00.000Z',
  contactId: exampleContact.id,
  agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
  agent: { id: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA', firstName: 'Marta', lastName: 'Ruiz' },
  templateId: 'tpl_0VhJ3kQ2Zt8mX1pR4sT6uT',
  usage: { category: 'MARKETING', billable: true },
  failureReason: null,
};

const receivedExample: Message = {
  id: 'msg_0VhJ3kQ2Zt8mX1pR4sT6uN',
  chatMessageId: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzRUIwNTJBQzBGNEE1RjFGQjk2QwA=',
  channel: 'MESSAGING',
  direction: 'INBOUND',
  type: 'TEXT',
  body: 'Yes please, tomorrow afternoon?',
  renderedBody: null,
  status: 'DELIVERED',
  timestamp: '2026-11-03T09:42:10.000Z',
  contactId: exampleContact.id,
  agentId: null,
  agent: null,
  templateId: null,
  usage: null,
  failureReason: null,
};

export const MessageSent = defineEvent({
  type: 'message.sent',
  description:
    'A message was sent to a contact over the messaging channel (free text in the 24-hour window, or an ' +
    'approved template). Recorded once the platform accepted it; delivery and reading follow as ' +
    '`message.status_changed`. `dedupeKey` is the key the platform was given with the send, the same ' +
    'for every attempt at the same message: an appointment reminder resumed after a crash may be sent ' +
    'twice (`reminder:<appointmentId>:<offsetMinutes>:<startsAt>`), and a receiver keeps the first ' +
    '`message.sent` of a key. null when the send had none.',
  schema: Type.Object(
    {
      message: MessagePayload,
      dedupeKey: Type.Union([Type.String(), Type.Null()], {
        description:
          'The same for every attempt at the same message (a reminder: reminder:<appointmentId>:<offsetMinutes>:<startsAt>; ' +
          "a request: the organization's id and its Idempotency-Key); null when the send had none.",
      }),
    },
    { additionalProperties: false },
  ),
  example: {
    message: sentExample,
    dedupeKey: 'org_0VhJ3kQ2Zt8mX1pR4sT6uO:5b0e8f3c-offer-calle-larios',
  },
});

export const MessageReceived = defineEvent({
  type: 'message.received',
  description:
    'A contact wrote to the agency over the messaging channel; the 24-hour service window is open until ' +
    '`windowExpiresAt`. An unknown number becomes a new contact (source MESSAGING) first.',
  schema: Type.Object(
    {
      message: MessagePayload,
      contact: ContactPayload,
      windowExpiresAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
  example: {
    message: receivedExample,
    contact: { ...exampleContact, source: 'MESSAGING' as const },
    windowExpiresAt: '2026-11-04T09:42:10.000Z',
  },
});

export const MessageStatusChanged = defineEvent({
  type: 'message.status_changed',
  description:
    'An outbound message moved on: DELIVERED and READ as the platform reports receipts, FAILED when the ' +
    'platform refused it (`message.failureReason` says why).',
  schema: Type.Object(
    { message: MessagePayload, previousStatus: StringEnum(MESSAGE_STATUSES) },
    { additionalProperties: false },
  ),
  example: {
    message: { ...sentExample, status: 'DELIVERED' as const },
    previousStatus: 'SENT' as const,
  },
});
