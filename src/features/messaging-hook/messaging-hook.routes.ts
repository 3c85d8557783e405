import { Type } from '@fastify/type-provider-typebox';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import { acceptSignedJson } from '../../platform/http/signed-json.ts';
import { HookParamsSchema, HookResultSchema, INBOUND_MESSAGE_EXAMPLE } from './messaging-hook.schema.ts';
import { handleMessagingHook, type HookPayload } from './messaging-hook.service.ts';
import { messagingContext } from '../conversations/index.ts';

/**
 * The messaging platform's inbound hook, in its own plugin: its JSON parser checks `X-Hub-Signature-256`
 * over the raw bytes before parsing (acceptSignedJson). Other routes keep the standard parser.
 */
export const messagingHookRoutes: FeaturePlugin = async (app, context) => {
  const { db } = context;
  const messaging = messagingContext(context);
  acceptSignedJson(app, {
    secret: context.config.messagingWebhookSecret,
    header: 'X-Hub-Signature-256',
    disabled: 'The messaging hook is disabled: MESSAGING_WEBHOOK_SECRET is not set',
  });

  app.post(
    '/hooks/messaging/:numberId',
    {
      config: { public: true },
      schema: {
        operationId: 'hooks.messaging.receive',
        summary: "The messaging platform's notifications (inbound messages, receipts)",
        description:
          'Cloud-API-shaped payload (`entry[].changes[].value.messages` and `.statuses`), signed with ' +
          '`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with MESSAGING_WEBHOOK_SECRET>` ' +
          '(401 when missing or wrong, 503 when no secret is configured). Inbound messages open the 24-hour ' +
          'window (an unknown number becomes a contact); STOP, BAJA or UNSUBSCRIBE opt the contact out; ' +
          'receipts move outbound messages to SENT, DELIVERED, READ or FAILED. Repeats are ignored.',
        tags: ['Hooks'],
        params: HookParamsSchema,
        body: Type.Object({}, { additionalProperties: true, examples: [INBOUND_MESSAGE_EXAMPLE] }),
        response: { 200: HookResultSchema, 401: ref(ErrorResponseSchema), 503: ref(ErrorResponseSchema) },
      },
    },
    async (request) => ({
      data: await handleMessagingHook(db, messaging, request.params.numberId, request.body as HookPayload),
    }),
  );
};
