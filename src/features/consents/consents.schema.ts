import { Type, type Static } from '@fastify/type-provider-typebox';
import { DataOf, DateTime, ref, StringEnum } from '../../platform/http/schemas.ts';
import { CONSENT_CHANNELS, CONSENT_HISTORY_LIMIT, CONSENT_STATUSES } from '../contacts/index.ts';

const Channel = StringEnum(CONSENT_CHANNELS, { description: 'MESSAGING, EMAIL or PHONE' });
const Status = StringEnum(CONSENT_STATUSES, { description: 'GRANTED or REVOKED' });

export const ConsentStateSchema = Type.Object(
  {
    status: Status,
    source: Type.String({
      description:
        'Where it was given or withdrawn: what the integrator sent, or INBOUND_STOP, OPT_OUT, LEAD_FORM, FINDER_FORM',
    }),
    at: DateTime({ description: 'When it was recorded' }),
  },
  { $id: 'ConsentState', additionalProperties: false },
);

export const ConsentHistoryItemSchema = Type.Object(
  {
    id: Type.String({ description: 'cns_… identifier of the history row' }),
    channel: Channel,
    status: Status,
    source: Type.String(),
    at: DateTime(),
    actorKind: Type.String({
      description: 'Who recorded it: API (a key), USER (the back office), SYSTEM...',
    }),
  },
  { $id: 'ConsentHistoryItem', additionalProperties: false },
);

const Current = Type.Union([ref(ConsentStateSchema), Type.Null()], {
  description: 'null: never stated on this channel',
});

export const ContactConsentsSchema = Type.Object(
  {
    contactId: Type.String(),
    current: Type.Object(
      { MESSAGING: Current, EMAIL: Current, PHONE: Current },
      { additionalProperties: false, description: 'The newest statement per channel' },
    ),
    history: Type.Array(ref(ConsentHistoryItemSchema), {
      description: `Every statement, newest first (at most ${CONSENT_HISTORY_LIMIT})`,
    }),
  },
  {
    $id: 'ContactConsents',
    additionalProperties: false,
    examples: [
      {
        contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uW',
        current: {
          MESSAGING: { status: 'REVOKED', source: 'INBOUND_STOP', at: '2027-03-29T10:15:00.000Z' },
          EMAIL: { status: 'GRANTED', source: 'website form', at: '2027-03-20T08:00:00.000Z' },
          PHONE: null,
        },
        history: [
          {
            id: 'cns_0VhJ3kQ2Zt8mX1pR4sT6uB',
            channel: 'MESSAGING',
            status: 'REVOKED',
            source: 'INBOUND_STOP',
            at: '2027-03-29T10:15:00.000Z',
            actorKind: 'SYSTEM',
          },
          {
            id: 'cns_0VhJ3kQ2Zt8mX1pR4sT6uA',
            channel: 'EMAIL',
            status: 'GRANTED',
            source: 'website form',
            at: '2027-03-20T08:00:00.000Z',
            actorKind: 'API',
          },
        ],
      },
    ],
  },
);

export const ContactConsentsParamsSchema = Type.Object(
  { id: Type.String({ description: 'ct_… identifier of the contact' }) },
  { additionalProperties: false },
);

export const ConsentChannelParamsSchema = Type.Object(
  { id: Type.String({ description: 'ct_… identifier of the contact' }), channel: Channel },
  { additionalProperties: false },
);

export const PutConsentBodySchema = Type.Object(
  {
    status: Status,
    source: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '\\S',
      description: 'Where the person gave or withdrew it (1-100 characters, not blank)',
      examples: ['website form'],
    }),
  },
  { $id: 'PutConsentBody', additionalProperties: false },
);
export type PutConsentBody = Static<typeof PutConsentBodySchema>;

export const ContactConsentsResponseSchema = DataOf(ref(ContactConsentsSchema));
export const consentsSchemas = [
  ConsentStateSchema,
  ConsentHistoryItemSchema,
  ContactConsentsSchema,
  PutConsentBodySchema,
];
