import { Errors } from '../../platform/errors/errors.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import { BounceBodySchema, BounceResultSchema } from './email.bounces.schema.ts';
import { BOUNCE_SIGNATURE_HEADER, receiveBounce, verifyBounceSignature } from './email.bounces.ts';

/**
 * The mail system's bounce hook, in its own plugin: its JSON parser keeps the raw bytes and checks
 * `X-Email-Signature` over them before parsing (the messaging hook's way), so an unsigned body is
 * never read as JSON. Other routes keep the standard parser.
 */
export const emailBounceRoutes: FeaturePlugin = async (app, { db, config }) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    try {
      verifyBounceSignature(
        config.emailBounceSecret,
        raw as Buffer,
        request.headers[BOUNCE_SIGNATURE_HEADER],
      );
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
