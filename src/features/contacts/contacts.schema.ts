import { Type, type Static } from '@fastify/type-provider-typebox';
import { DateTime, StringEnum } from '../../platform/http/schemas.ts';

/** Where a contact came from (docs/decisions.md "Contact value sets"). */
export const CONTACT_SOURCES = [
  'WEBSITE',
  'PORTAL',
  'FINDER',
  'BOOKING',
  'MESSAGING',
  'PHONE',
  'EMAIL',
  'WALK_IN',
  'REFERRAL',
  'SOCIAL',
  'IMPORT',
  'API',
  'OTHER',
] as const;
/** Where the contact stands in the sales funnel. */
export const CONTACT_STATUSES = ['NEW', 'CONTACTED', 'QUALIFIED', 'UNQUALIFIED', 'CONVERTED', 'ARCHIVED'] as const;
/** What the contact is to the agency. */
export const CONTACT_TYPES = ['LEAD', 'CLIENT', 'OWNER', 'TENANT', 'INVESTOR', 'PARTNER', 'OTHER'] as const;
export type ContactSource = (typeof CONTACT_SOURCES)[number];
export type ContactStatus = (typeof CONTACT_STATUSES)[number];
export type ContactType = (typeof CONTACT_TYPES)[number];

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/** SPEC.md "Contact", plus updatedAt, optedOut and externalId. Event payloads carry exactly this. */
export const ContactSchema = Type.Object(
  {
    id: Type.String({ description: 'ct_… identifier' }),
    code: Type.String({ description: 'Human-readable code, unique in the organization (CT-000042)' }),
    firstName: Type.String(),
    lastName: Type.String(),
    fullName: Type.String(),
    email: Nullable(Type.String({ format: 'email' })),
    phone: Nullable(Type.String({ description: 'E.164, leading +' })),
    source: StringEnum(CONTACT_SOURCES),
    status: StringEnum(CONTACT_STATUSES),
    type: StringEnum(CONTACT_TYPES),
    score: Type.Number({ minimum: 0, maximum: 100 }),
    ownerId: Nullable(Type.String({ description: 'Agent who owns the contact' })),
    preferredCity: Nullable(Type.String()),
    preferredType: Nullable(Type.String({ description: 'Property type, e.g. APARTMENT' })),
    budget: Type.Union([Type.Number(), Type.Null()]),
    currency: Nullable(Type.String({ description: 'ISO 4217' })),
    tags: Type.Array(Type.String()),
    optedOut: Type.Boolean({ description: 'The contact asked not to be messaged' }),
    externalId: Nullable(Type.String()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Contact', additionalProperties: false },
);
export type Contact = Static<typeof ContactSchema>;

export const contactsSchemas = [ContactSchema];
