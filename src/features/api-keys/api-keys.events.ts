import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';

/** The key as events show it: never the key itself, never its hash. */
const ApiKeyEventSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ enum: ['publishable', 'secret', 'read_only_secret'] }),
    mode: Type.String({ enum: ['live', 'test'] }),
    name: Type.Union([Type.String(), Type.Null()]),
    keyPrefix: Type.String(),
    scopes: Type.Array(Type.String()),
    accessLevel: Type.Integer(),
    status: Type.String({ enum: ['active', 'suspended', 'deactivated'] }),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const example = {
  apiKey: {
    id: 'key_0VhJ3kQ2Zt8mX1pR4sT6uW',
    type: 'secret',
    mode: 'live',
    name: 'CRM sync',
    keyPrefix: 'service_sk_live_4fQz',
    scopes: ['contacts:read', 'deals:read'],
    accessLevel: 1,
    status: 'active',
    expiresAt: null,
    createdAt: '2026-11-21T10:00:00.000Z',
  },
};

export const ApiKeyCreated = defineEvent({
  type: 'api_key.created',
  description: 'An API key was created for the organization (the key itself is never included).',
  schema: Type.Object({ apiKey: ApiKeyEventSchema }, { additionalProperties: false }),
  example,
});

export const ApiKeyUpdated = defineEvent({
  type: 'api_key.updated',
  description: 'An API key changed: suspended, reactivated, deactivated, renamed, new expiry or limits.',
  schema: Type.Object(
    {
      apiKey: ApiKeyEventSchema,
      changes: Type.Array(Type.String(), { description: 'Names of the changed fields' }),
    },
    { additionalProperties: false },
  ),
  example: { apiKey: { ...example.apiKey, status: 'suspended' }, changes: ['status'] },
});
