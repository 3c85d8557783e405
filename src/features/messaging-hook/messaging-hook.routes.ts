import { Type } from '@fastify/type-provider-typebox';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import { HookParamsSchema, HookResultSchema, INBOUND_MESSAGE_EXAMPLE } from './messaging-hook.schema.ts';
import { handleMessagingHook, verifyHookSignature, type HookPayload } from './messaging-hook.service.ts';
import { messagingContext } from '../conversations/index.ts';

/**
 * The messaging platform's inbound hook, in its own plugin: its JSON parser keeps the raw bytes and
 * checks `X-Hub-Signature-256` over them before parsing, so an unsigned body is never even read as
 * JSON. Other routes keep the standard parser.
 */
export const messagingHookRoutes: FeaturePlugin = async (app, context) => {
  const { db } = context;
  const messaging = messagingContext(context);
  const webhookSecret = context.config.messagingWebhookSecret;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    try {
      verifyHookSignature(webhookSecret, raw as Buffer, request.headers['x-hub-signature-256']);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    try {
      done(null, JSON.parse((raw as Buffer).toString('utf8')));
    } catch {
      done(Errors.validation('body is not valid JSON', [{ field: 'body', message: 'is not valid JSON' }]));
    }
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
