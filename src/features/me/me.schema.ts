import { Type, type Static } from '@fastify/type-provider-typebox';
import { PLANS } from '../../platform/auth/plans.ts';
import { ScopeNameSchema } from '../../platform/auth/scopes.ts';
import { DataOf, ref, StringEnum } from '../../platform/http/schemas.ts';

export const MeSchema = Type.Object(
  {
    apiKeyId: Type.String({ description: 'Id of the calling key' }),
    organization: Type.Object(
      {
        id: Type.String({ description: 'The organization the key acts on (the test twin for test keys)' }),
        name: Type.String(),
        plan: StringEnum(PLANS),
        isActive: Type.Boolean(),
        readOnly: Type.Boolean({ description: 'True while billing is unresolved: every mutation gets 402' }),
        livemode: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    scopes: Type.Array(ScopeNameSchema),
    keyType: StringEnum(['publishable', 'secret', 'read_only_secret']),
    mode: StringEnum(['live', 'test']),
    accessLevel: Type.Integer({ minimum: 1, maximum: 3 }),
    agentId: Type.Union([Type.String(), Type.Null()], { description: 'Agent the key sends messages as' }),
    limits: Type.Object(
      {
        requestsPerMinute: Type.Integer(),
        writesPerMinute: Type.Integer(),
        organizationWritesPerMinute: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'Me', additionalProperties: false, description: 'The calling key, its organization and limits' },
);
export type Me = Static<typeof MeSchema>;

export const MeResponseSchema = DataOf(ref(MeSchema));

export const RateLimitPolicySchema = Type.Object(
  {
    name: StringEnum(['key', 'key-writes', 'organization-writes'], {
      description:
        'key: every request of the key; key-writes: its writes; organization-writes: the writes of all keys of the organization',
    }),
    limit: Type.Integer({ minimum: 0, description: 'Requests allowed per window' }),
    remaining: Type.Integer({ minimum: 0, description: 'Left in the current window' }),
    windowSeconds: Type.Integer({ minimum: 1 }),
    resetSeconds: Type.Integer({
      minimum: 0,
      description: 'Seconds until the current window ends; 0 when nothing was counted in it yet',
    }),
  },
  {
    $id: 'RateLimitPolicy',
    additionalProperties: false,
    description: 'One rate-limit policy of the calling key, from the live counters',
  },
);
export type RateLimitPolicy = Static<typeof RateLimitPolicySchema>;

export const RateLimitsResponseSchema = DataOf(Type.Array(ref(RateLimitPolicySchema)));
export const meSchemas = [MeSchema, RateLimitPolicySchema];
