import { Type, type Static } from '@fastify/type-provider-typebox';
import { DataOf, DateTime, ref } from '../../platform/http/schemas.ts';

export const ContactErasureSchema = Type.Object(
  {
    id: Type.String({ description: 'ct_… of the erased contact' }),
    deleted: Type.Literal(true),
    erased: Type.Object(
      {
        deals: Type.Integer({
          description: 'Deals that stay without the contact, the person redacted from them',
        }),
        tasks: Type.Integer({ description: 'Tasks that stay without the contact' }),
        appointments: Type.Integer({ description: 'Appointments that stay without the contact' }),
        events: Type.Integer({
          description: 'Events (event log, pending webhook deliveries) rewritten without their data',
        }),
        storedResponses: Type.Integer({
          description: 'Stored idempotent responses rewritten without their data',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ContactErasure', additionalProperties: false },
);

const ExportRecord = Type.Object(
  {},
  { additionalProperties: true, description: 'One row, its columns in camelCase' },
);

export const ContactExportSchema = Type.Object(
  {
    contactId: Type.String(),
    generatedAt: DateTime(),
    records: Type.Record(Type.String(), Type.Array(ExportRecord), {
      description:
        'Every place that holds records about the person (contacts, contactNotes, contactConsents, leads, ' +
        'visitRequests, finderSearches, conversations, messages, usageEvents, usageDaily, deals, ' +
        'dealStageChanges, appointments, tasks) to its rows, oldest first; docs/privacy.md lists them',
    }),
    copies: Type.Array(
      Type.Object({ place: Type.String(), note: Type.String() }, { additionalProperties: false }),
      { description: 'Where copies of these records also live for a while (event log, stored responses)' },
    ),
  },
  { $id: 'ContactExport', additionalProperties: false },
);

export const PrivacyContactParamsSchema = Type.Object(
  { id: Type.String({ description: 'ct_… identifier of the contact' }) },
  { additionalProperties: false },
);

export const MergeContactBodySchema = Type.Object(
  {
    sourceContactId: Type.String({
      maxLength: 64,
      description: 'ct_… of the contact merged into this one and then removed',
    }),
  },
  { $id: 'MergeContactBody', additionalProperties: false },
);
export type MergeContactBody = Static<typeof MergeContactBodySchema>;

export const ContactErasureResponseSchema = DataOf(ref(ContactErasureSchema));
export const ContactExportResponseSchema = DataOf(ref(ContactExportSchema));
export type ContactErasure = Static<typeof ContactErasureSchema>;
export const privacySchemas = [ContactErasureSchema, ContactExportSchema, MergeContactBodySchema];
