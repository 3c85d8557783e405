import { Type } from '@fastify/type-provider-typebox';
import { DataOf } from '../../platform/http/schemas.ts';

// The provider's inbound hook (Cloud-API-shaped payload; unknown members are ignored).

export const HookParamsSchema = Type.Object({ numberId: Type.String() }, { additionalProperties: false });
export const HookResultSchema = DataOf(
  Type.Object(
    {
      received: Type.Integer({ description: 'Inbound messages recorded' }),
      statuses: Type.Integer({ description: 'Delivery receipts applied' }),
      ignored: Type.Integer({ description: 'Repeats, unknown messages and unsupported items' }),
    },
    { additionalProperties: false },
  ),
);
