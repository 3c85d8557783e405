import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import { acceptSignedJson } from '../../platform/http/signed-json.ts';
import { BounceBodySchema, BounceResultSchema } from './email.bounces.schema.ts';
import { BOUNCE_SIGNATURE_HEADER, receiveBounce } from './email.bounces.ts';

/**
 * The mail system's bounce hook, in its own plugin: its JSON parser checks `X-Email-Signature` over the
 * raw bytes before parsing (acceptSignedJson, as the messaging hook's). Other routes keep the standard parser.
 */
export const emailBounceRoutes: FeaturePlugin = async (app, { db, config }) => {
  acceptSignedJson(app, {
    secret: config.emailBounceSecret,
    header: BOUNCE_SIGNATURE_HEADER,
    disabled: 'The email bounce hook is disabled: EMAIL_BOUNCE_SECRET is not set',
  });

  app.post(
    '/hooks/email/bounces',
    {
      // Mail systems send no Idempotency-Key (honoured when sent, as on every POST); a repeated report
      // answers REPEATED and changes nothing.
      config: { public: true },
      schema: {
        operationId: 'hooks.email.bounces',
        summary: "The mail system's bounce reports",
        description:
          'One bounce per request, `{messageId, recipient?, permanent, reason?}` (docs/email-bounces.md: how to relay a ' +
          'mail provider’s bounce notifications or DSNs here), signed with `X-Email-Signature: sha256=<hex ' +
          'HMAC-SHA256 of the raw body with EMAIL_BOUNCE_SECRET>` (401 when missing or wrong, 503 while ' +
          'EMAIL_BOUNCE_SECRET is not set). The email is the one whose Message-ID is given (`<eml_…@domain>`); ' +
          'in one transaction it becomes BOUNCED with the reason, a permanent bounce suppresses its address (no ' +
          'more email goes to it in that organization) and `email.bounced` is recorded. Unknown Message-IDs, ' +
          'emails never sent and repeats answer 200 too (`outcome` says which), so the mail system does not ' +
          'retry; a malformed body is a 400 naming the field.',
        tags: ['Hooks'],
        body: BounceBodySchema,
        response: {
          200: BounceResultSchema,
          401: ref(ErrorResponseSchema),
          503: ref(ErrorResponseSchema),
        },
      },
    },
    async (request) => ({ data: await receiveBounce(db, config.emailFrom, request.body) }),
  );
};
