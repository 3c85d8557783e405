import { Type } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { AppError } from '../../platform/errors/errors.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { unsubscribePage, UNSUBSCRIBE_PAGE_HEADERS } from './email.unsubscribe.page.ts';
import { unsubscribeContact, unsubscribeStateOf } from './email.unsubscribe.service.ts';

const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';
const TAGS = ['Email'];

/**
 * The link is the credential (decision 0269): its organization is checked at the edge as for any key
 * (403 while not active, 404 once deleted). Not a `write`: the person's unsubscribe is taken while the
 * organization is read-only, as the messaging hook takes a STOP, so the law's "stop" never waits on
 * the agency's account.
 */
const LINK = { credential: { kind: 'unsubscribe_link', write: false } } as const;
const NO_KEY =
  'No key: the token of the link (the `List-Unsubscribe` header and the footer of every email to a visitor) ' +
  'is the credential, signed by the service for one contact of one organization. 404 for a token not ours ' +
  'or a contact erased or deleted since; 403 while the organization is not active. ';

const TokenParamsSchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the unsubscribe link' }) },
  { additionalProperties: false },
);

/** What RFC 8058 mail clients post; the page's own button posts an empty form. */
const OneClickBodySchema = Type.Object(
  {
    'List-Unsubscribe': Type.Optional(
      Type.String({ maxLength: 100, description: 'RFC 8058 mail clients send `One-Click`' }),
    ),
  },
  { additionalProperties: true, examples: [{ 'List-Unsubscribe': 'One-Click' }] },
);

const html = (description: string) => ({
  description,
  headers: {
    'Cache-Control': { type: 'string', description: '`no-store`: the page of a credential is never kept' },
  },
  content: { 'text/html': { schema: { type: 'string', description: 'A small HTML page' } } },
});

/** The form's fields (repeats keep the last); a value is never read as anything but text. */
function formFields(text: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(text));
}

/**
 * GET and POST /email/unsubscribe/{token}: the one-click unsubscribe of RFC 8058 and its page. This
 * plugin reads forms only (its own parsers): the POST's content is not what unsubscribes, the link is.
 */
export const emailUnsubscribeRoutes: FeaturePlugin = async (app, { db }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, text, done) =>
    done(null, formFields(text as string)),
  );
  // RFC 8058 says mail clients SHOULD post multipart/form-data: accepted, its parts not needed.
  app.addContentTypeParser(MULTIPART, { parseAs: 'string' }, (_request, _text, done) => done(null, {}));
  app.addContentTypeParser('*', (request, _payload, done) => {
    const type = request.headers['content-type'] ?? 'none';
    done(new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${FORM} or ${MULTIPART}, not ${type}`));
  });

  app.get(
    '/email/unsubscribe/:token',
    {
      config: LINK,
      schema: {
        operationId: 'email.unsubscribe.page',
        summary: 'The page of an unsubscribe link',
        description:
          `${NO_KEY}An HTML page in the contact's preferred language, else the organization's (es, en or pt; else English) that asks, with one ` +
          'button (a POST to the same URL), or says the contact is already unsubscribed. It changes nothing: ' +
          'mail scanners open every link of an email.',
        tags: TAGS,
        params: TokenParamsSchema,
        response: { 200: html('The page') },
      },
    },
    async (request, reply) => {
      const state = await unsubscribeStateOf(db, callerOf(request));
      return reply
        .type('text/html; charset=utf-8')
        .headers(UNSUBSCRIBE_PAGE_HEADERS)
        .send(unsubscribePage(state));
    },
  );

  app.post(
    '/email/unsubscribe/:token',
    {
      config: { ...LINK, optionalBody: true },
      schema: {
        operationId: 'email.unsubscribe',
        summary: 'Unsubscribe from emails (one click, RFC 8058)',
        description:
          `${NO_KEY}What mail clients post for \`List-Unsubscribe-Post: List-Unsubscribe=One-Click\` ` +
          "(`List-Unsubscribe=One-Click`, as a form or multipart/form-data), and what the page's button posts " +
          "(an empty form). The contact's EMAIL consent becomes REVOKED with source `EMAIL_UNSUBSCRIBE` and " +
          '`contact.consent_changed` is recorded, in one transaction: no email goes to the contact any more (visit ' +
          'confirmations, changes and reminders included). Again: 200, nothing more recorded. Taken while the ' +
          'organization is read-only. Answers a small HTML page saying it is done.',
        tags: TAGS,
        params: TokenParamsSchema,
        consumes: [FORM, MULTIPART],
        body: OneClickBodySchema,
        response: { 200: html('Done: the page says so') },
      },
    },
    async (request, reply) => {
      const state = await unsubscribeContact(db, callerOf(request));
      return reply
        .type('text/html; charset=utf-8')
        .headers(UNSUBSCRIBE_PAGE_HEADERS)
        .send(unsubscribePage(state));
    },
  );
};
