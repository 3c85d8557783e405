import { Type, type Static } from '@fastify/type-provider-typebox';
import { PLANS } from '../../platform/auth/plans.ts';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, ref, StringEnum } from '../../platform/http/schemas.ts';

const Plan = StringEnum(PLANS);
const CountryCode = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' });
const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' });
const LanguageCode = Type.String({ pattern: '^[a-z]{2}$', description: 'ISO 639-1 (es, en, pt, ...)' });
const Languages = Type.Array(LanguageCode, {
  uniqueItems: true,
  minItems: 1,
  maxItems: 20,
  examples: [['es', 'en']],
  description:
    'The languages the portal serves listings in, the default language first (added when missing); a test twin follows its live organization',
});
const PerMinute = (max: number, min = 1) => Type.Integer({ minimum: min, maximum: max });

export const AdminOrganizationSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    plan: Plan,
    isActive: Type.Boolean(),
    readOnly: Type.Boolean(),
    writeLimitPerMinute: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Organization-wide writes per minute; null = the plan default',
    }),
    effectiveWriteLimitPerMinute: Type.Integer(),
    defaultCountry: CountryCode,
    defaultCurrency: CurrencyCode,
    mcpMaskPersonalData: Type.Boolean({
      description:
        'MCP tool results show phone numbers and emails masked (+34 6** ** ** 78, l***@example.com); a test twin follows its live organization',
    }),
    showPriceDrops: Type.Boolean({
      description:
        "The portal shows a reduced listing's previous price (`previousPrice`); a test twin follows its live organization",
    }),
    defaultLanguage: Type.String({
      description:
        "ISO 639-1: the language of listings' own title and description, and the portal's fallback (default en)",
    }),
    languages: Languages,
    livemode: Type.Boolean({ description: 'False for a test twin' }),
    testOrganizationId: Type.Union([Type.String(), Type.Null()], {
      description: 'The test twin (live organizations)',
    }),
    liveOrganizationId: Type.Union([Type.String(), Type.Null()], {
      description: 'The live organization (test twins)',
    }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'AdminOrganization', additionalProperties: false },
);
export type AdminOrganization = Static<typeof AdminOrganizationSchema>;

export const CreateOrganizationBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    plan: Plan,
    defaultCountry: Type.Optional(CountryCode),
    defaultCurrency: Type.Optional(CurrencyCode),
    writeLimitPerMinute: Type.Optional(PerMinute(100_000)),
  },
  {
    additionalProperties: false,
    // Sampled, the organization would get one write a minute.
    examples: [{ name: 'Demo Realty', plan: 'PROFESSIONAL', defaultCountry: 'ES', defaultCurrency: 'EUR' }],
  },
);
export type CreateOrganizationBody = Static<typeof CreateOrganizationBodySchema>;

export const UpdateOrganizationBodySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    plan: Type.Optional(Plan),
    isActive: Type.Optional(Type.Boolean()),
    readOnly: Type.Optional(Type.Boolean()),
    writeLimitPerMinute: Type.Optional(Type.Union([PerMinute(100_000), Type.Null()])),
    defaultCountry: Type.Optional(CountryCode),
    defaultCurrency: Type.Optional(CurrencyCode),
    mcpMaskPersonalData: Type.Optional(
      Type.Boolean({ description: 'Mask phone numbers and emails in MCP tool results (default false)' }),
    ),
    showPriceDrops: Type.Optional(
      Type.Boolean({ description: "Show a reduced listing's previous price on the portal (default false)" }),
    ),
    defaultLanguage: Type.Optional(LanguageCode),
    languages: Type.Optional(Languages),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    // A change names what it changes: sampled, it would make the organization read-only at one write a minute.
    examples: [{ name: 'Demo Realty Málaga', showPriceDrops: true, languages: ['es', 'en'] }],
  },
);
export type UpdateOrganizationBody = Static<typeof UpdateOrganizationBodySchema>;

export const ListOrganizationsQuerySchema = Type.Object(
  { ...pageQuery(), plan: Type.Optional(Plan), isActive: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type ListOrganizationsQuery = Static<typeof ListOrganizationsQuerySchema>;

export const OrganizationResponseSchema = DataOf(ref(AdminOrganizationSchema));
export const OrganizationListResponseSchema = ListOf(ref(AdminOrganizationSchema));

export const organizationsSchemas = [AdminOrganizationSchema];
