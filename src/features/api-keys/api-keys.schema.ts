import { Type, type Static } from '@fastify/type-provider-typebox';
import { MAX_SCOPES, ScopeNameSchema } from '../../platform/auth/scopes.ts';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, ref, StringEnum } from '../../platform/http/schemas.ts';

const KeyTypeSchema = StringEnum(['publishable', 'secret', 'read_only_secret']);
const KeyModeSchema = StringEnum(['live', 'test']);
const KeyStatusSchema = StringEnum(['active', 'suspended', 'deactivated']);
const PerMinute = (max: number, min = 1) => Type.Integer({ minimum: min, maximum: max });

export const KeyIdParamsSchema = Type.Object({ keyId: Type.String() }, { additionalProperties: false });

export const AdminApiKeySchema = Type.Object(
  {
    id: Type.String(),
    organizationId: Type.String({ description: 'The organization the key acts on (the twin for test keys)' }),
    type: KeyTypeSchema,
    mode: KeyModeSchema,
    name: Type.Union([Type.String(), Type.Null()]),
    keyPrefix: Type.String({ description: 'First characters of the key, to tell keys apart' }),
    scopes: Type.Array(ScopeNameSchema, { description: 'What the key holds now' }),
    scopesFollowDefaults: Type.Boolean({
      description:
        "Made without naming scopes: it holds its type's default scopes, including those a later version adds, " +
        'beside any it was granted (false: exactly the scopes it was made with)',
    }),
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
    scopes: Type.Optional(
      Type.Array(ScopeNameSchema, {
        uniqueItems: true,
        maxItems: MAX_SCOPES,
        description:
          "Exactly these. Omitted: the type's default scopes, and those later versions add " +
          '(`scopesFollowDefaults`)',
      }),
    ),
    accessLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
    rateLimitPerMinute: Type.Optional(PerMinute(100_000)),
    writeLimitPerMinute: Type.Optional(PerMinute(100_000, 0)),
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    expiresAt: Type.Optional(DateTime()),
  },
  {
    additionalProperties: false,
    // A server key of a CRM integration; no `expiresAt` (it must lie ahead, and a document is not dated).
    examples: [
      {
        type: 'secret',
        mode: 'live',
        name: 'CRM sync',
        scopes: ['contacts:read', 'deals:read'],
        rateLimitPerMinute: 120,
        writeLimitPerMinute: 30,
      },
    ],
  },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>;

export const UpdateApiKeyBodySchema = Type.Object(
  {
    status: Type.Optional(KeyStatusSchema),
    expiresAt: Type.Optional(Type.Union([DateTime(), Type.Null()])),
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
    rateLimitPerMinute: Type.Optional(Type.Union([PerMinute(100_000), Type.Null()])),
    writeLimitPerMinute: Type.Optional(Type.Union([PerMinute(100_000, 0), Type.Null()])),
    scopes: Type.Optional(
      Type.Array(ScopeNameSchema, {
        uniqueItems: true,
        maxItems: MAX_SCOPES,
        description:
          'What the key holds from now on: exactly these, and no longer the defaults later versions add ' +
          'unless `scopesFollowDefaults` is true in the same change',
      }),
    ),
    scopesFollowDefaults: Type.Optional(
      Type.Boolean({
        description:
          "true: the key also holds its type's default scopes, now and as later versions add them; false: " +
          'it keeps exactly what it holds now',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ name: 'CRM sync (old server)', rateLimitPerMinute: 120 }],
  },
);
export type UpdateApiKeyBody = Static<typeof UpdateApiKeyBodySchema>;

/** Most a roll may keep the old key valid: 7 days (issue 22). */
export const MAX_OVERLAP_HOURS = 168;

export const RollApiKeyBodySchema = Type.Object(
  {
    overlapHours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_HOURS,
        default: 24,
        description: 'Hours the old key keeps working (0 = it expires now); default 24, at most 168',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RollApiKeyBody = Static<typeof RollApiKeyBodySchema>;

export const RolledApiKeySchema = Type.Object(
  {
    key: ref(CreatedApiKeySchema),
    rolledKey: Type.Object(
      {
        id: Type.String({ description: 'The old key' }),
        expiresAt: DateTime({ description: 'When the old key stops working' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'RolledApiKey', additionalProperties: false },
);
export type RolledApiKey = Static<typeof RolledApiKeySchema>;

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

export const ApiKeyResponseSchema = DataOf(ref(AdminApiKeySchema));
export const CreatedApiKeyResponseSchema = DataOf(ref(CreatedApiKeySchema));
export const ApiKeyListResponseSchema = ListOf(ref(AdminApiKeySchema));
export const RolledApiKeyResponseSchema = DataOf(ref(RolledApiKeySchema));

export const apiKeysSchemas = [AdminApiKeySchema, CreatedApiKeySchema, RolledApiKeySchema];
