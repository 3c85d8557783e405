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

/** What the document shows the hook receiving: one inbound text message from a contact. */
export const INBOUND_MESSAGE_EXAMPLE = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '34600111222', phone_number_id: '106540352242922' },
            contacts: [{ profile: { name: 'Lucía García' }, wa_id: '34600111333' }],
            messages: [
              {
                from: '34600111333',
                id: 'wamid.HBgLMzQ2MDAxMTEzMzMVAgASGBQzQTdBRTZBQjdDNUQ5RjQ3QkI0NAA',
                timestamp: '1774779300',
                type: 'text',
                text: { body: '¿Sigue disponible el piso de Calle Larios?' },
              },
            ],
          },
        },
      ],
    },
  ],
};
