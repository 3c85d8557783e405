import { Type, type Static } from '@fastify/type-provider-typebox';
import { PLANS } from '../../platform/auth/plans.ts';
import { SCOPES } from '../../platform/auth/scopes.ts';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, ref, StringEnum } from '../../platform/http/schemas.ts';

const Plan = StringEnum(PLANS);
const KeyTypeSchema = StringEnum(['publishable', 'secret', 'read_only_secret']);
const KeyModeSchema = StringEnum(['live', 'test']);
const KeyStatusSchema = StringEnum(['active', 'suspended', 'deactivated']);
const CountryCode = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' });
const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' });
const PerMinute = (max: number, min = 1) => Type.Integer({ minimum: min, maximum: max });

export const OrganizationIdParamsSchema = Type.Object(
  { orgId: Type.String() },
  { additionalProperties: false },
);
export const KeyIdParamsSchema = Type.Object({ keyId: Type.String() }, { additionalProperties: false });

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
  { additionalProperties: false },
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
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateOrganizationBody = Static<typeof UpdateOrganizationBodySchema>;

export const ListOrganizationsQuerySchema = Type.Object(
  { ...pageQuery(), plan: Type.Optional(Plan), isActive: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type ListOrganizationsQuery = Static<typeof ListOrganizationsQuerySchema>;

export const AdminApiKeySchema = Type.Object(
  {
    id: Type.String(),
    organizationId: Type.String({ description: 'The organization the key acts on (the twin for test keys)' }),
    type: KeyTypeSchema,
    mode: KeyModeSchema,
    name: Type.Union([Type.String(), Type.Null()]),
    keyPrefix: Type.String({ description: 'First characters of the key, to tell keys apart' }),
    scopes: Type.Array(StringEnum(SCOPES)),
    accessLevel: Type.Integer({ minimum: 1, maximum: 3 }),
    status: KeyStatusSchema,
    expiresAt: Type.Union([DateTime(), Type.Null()]),
    rateLimitPerMinute: Type.Integer({ description: 'Effective requests per minute' }),
    writeLimitPerMinute: Type.Integer({ description: 'Effective writes per minute' }),
    agentId: Type.Union([Type.String(), Type.Null()]),
    lastUsedAt: Type.Union([DateTime(), Type.Null()]),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'AdminApiKey', additionalProperties: false },
);
export type AdminApiKey = Static<typeof AdminApiKeySchema>;

export const CreatedApiKeySchema = Type.Object(
  {
    ...AdminApiKeySchema.properties,
    key: Type.String({ description: 'The full key. Shown only in this response: store it now.' }),
  },
  { $id: 'CreatedApiKey', additionalProperties: false },
);
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

export const CreateApiKeyBodySchema = Type.Object(
  {
    type: KeyTypeSchema,
    mode: Type.Optional(KeyModeSchema),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Optional(Type.Array(StringEnum(SCOPES), { uniqueItems: true, maxItems: SCOPES.length })),
    accessLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
    rateLimitPerMinute: Type.Optional(PerMinute(100_000)),
    writeLimitPerMinute: Type.Optional(PerMinute(100_000, 0)),
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    expiresAt: Type.Optional(DateTime()),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>;

export const UpdateApiKeyBodySchema = Type.Object(
  {
    status: Type.Optional(KeyStatusSchema),
    expiresAt: Type.Optional(Type.Union([DateTime(), Type.Null()])),
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
    rateLimitPerMinute: Type.Optional(Type.Union([PerMinute(100_000), Type.Null()])),
    writeLimitPerMinute: Type.Optional(Type.Union([PerMinute(100_000, 0), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateApiKeyBody = Static<typeof UpdateApiKeyBodySchema>;

export const ListApiKeysQuerySchema = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(KeyStatusSchema),
    type: Type.Optional(KeyTypeSchema),
    mode: Type.Optional(KeyModeSchema),
  },
  { additionalProperties: false },
);
export type ListApiKeysQuery = Static<typeof ListApiKeysQuerySchema>;

export const DemoSeedSchema = Type.Object(
  {
    organization: ref(AdminOrganizationSchema),
    publishableKey: Type.String(),
    secretKey: Type.String({ description: 'Secret key with every scope and access level 3' }),
  },
  { $id: 'DemoSeed', additionalProperties: false },
);
export type DemoSeed = Static<typeof DemoSeedSchema>;

export const OrganizationResponseSchema = DataOf(ref(AdminOrganizationSchema));
export const OrganizationListResponseSchema = ListOf(ref(AdminOrganizationSchema));
export const ApiKeyResponseSchema = DataOf(ref(AdminApiKeySchema));
export const CreatedApiKeyResponseSchema = DataOf(ref(CreatedApiKeySchema));
export const ApiKeyListResponseSchema = ListOf(ref(AdminApiKeySchema));
export const DemoSeedResponseSchema = DataOf(ref(DemoSeedSchema));

export const adminSchemas = [AdminOrganizationSchema, AdminApiKeySchema, CreatedApiKeySchema, DemoSeedSchema];
