import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { defineOperation, keyMount, mountOperations } from '../../platform/http/operation.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ref } from '../../platform/http/schemas.ts';
import {
  EmailSettingsResponseSchema,
  EmailTemplateListResponseSchema,
  EmailTemplateParamsSchema,
  EmailTemplateResponseSchema,
  PreviewEmailTemplateBodySchema,
  PutEmailTemplateBodySchema,
  RenderedEmailResponseSchema,
  UpdateEmailSettingsBodySchema,
} from './email.schema.ts';
import * as templates from './email.service.ts';
import * as settings from './email.settings.ts';

const TAGS = ['Email'];
const READ = keyMount({ scope: 'email:read', keyTypes: SECRET_KEYS, write: false }, TAGS);
// What the agency's emails say and who they come from: changed like its calendar, support-approved.
const WRITE = keyMount({ scope: 'email:write', keyTypes: ['secret'], write: true, accessLevel: 3 }, TAGS);

const GUIDE = 'Templates, variables and fallbacks: docs/decisions/0268-email-templates.md.';
const MUSTACHE =
  'Templates are Mustache: `{{name}}` inserts a variable of the kind (HTML-escaped in the HTML part, as it is ' +
  'in the subject and text), `{{#name}}…{{/name}}` shows a part only when the value is set and ' +
  '`{{^name}}…{{/name}}` only when it is not. Any other name, a dotted name, a partial (`{{>x}}`), an ' +
  'unescaped value in HTML (`{{{x}}}`, `{{&x}}`) or an unclosed section is a 400 naming the part and the tag.';
const LANGUAGE =
  "`language`: es, en, pt or another of the organization's languages (a 400 otherwise); `kind`: one of the " +
  'seven kinds (a 400 otherwise). A language without a template of its own uses the default language’s, ' +
  'else English (`fallbackLanguage` says so).';
const FOOTER = "Visitor emails get the unsubscribe footer below any template: don't write one.";

const SETTINGS =
  '`senderName` is the From name (null: the organization’s name), `replyTo` the Reply-To address, ' +
  '`alertAddress` where alerts of leads, visit requests and bookings go when no agent with an email ' +
  'address has them, `hourlyLimit` the most emails sent in a rolling hour (1 to 10,000; default 200). A ' +
  "test key reads and changes the test twin's own settings.";

/** The organization's email templates and settings (issue 41), on v1 with a secret key. */
const operations = (db: Database) => [
  defineOperation({
    id: 'email.templates.list',
    method: 'GET',
    path: '/email/templates',
    summary: "List the organization's email templates",
    description:
      "Every kind in es, en, pt and the organization's other languages, with the subject in effect, whether it is " +
      `the organization's own (\`custom\`) and the variables the kind's templates may name. ${GUIDE}`,
    response: { 200: EmailTemplateListResponseSchema },
    mounts: [READ],
    handle: async (caller) => ({ data: await templates.listEmailTemplates(db, caller) }),
  }),
  defineOperation({
    id: 'email.templates.get',
    method: 'GET',
    path: '/email/templates/:kind/:language',
    summary: 'Get an email template',
    description: `The template in effect: the organization's own (\`custom: true\`) or the built-in one, with its three parts and the variables it may name. ${LANGUAGE}`,
    params: EmailTemplateParamsSchema,
    response: { 200: EmailTemplateResponseSchema },
    mounts: [READ],
    handle: async (caller, { params }) => ({ data: await templates.getEmailTemplate(db, caller, params) }),
  }),
  defineOperation({
    id: 'email.templates.put',
    method: 'PUT',
    path: '/email/templates/:kind/:language',
    summary: 'Replace an email template',
    description:
      `The organization's own template of the kind in the language, all three parts (subject, HTML, text), used for ` +
      `every email of the kind in that language from now on. Idempotent: the same body again changes nothing. ${MUSTACHE} ` +
      `${FOOTER} ${LANGUAGE}`,
    params: EmailTemplateParamsSchema,
    body: ref(PutEmailTemplateBodySchema),
    response: { 200: EmailTemplateResponseSchema },
    mounts: [WRITE],
    handle: async (caller, { params, body }) => ({
      data: await templates.putEmailTemplate(db, caller, params, body),
    }),
  }),
  defineOperation({
    id: 'email.templates.delete',
    method: 'DELETE',
    path: '/email/templates/:kind/:language',
    summary: 'Go back to the built-in email template',
    description:
      "Deletes the organization's own template of the kind in the language and answers the template now in effect " +
      '(the built-in one, or the fallback language’s). 404 when the organization has no template of its own there ' +
      '(as for any DELETE of something missing; a repeated DELETE is a 404 and changes nothing).',
    params: EmailTemplateParamsSchema,
    response: { 200: EmailTemplateResponseSchema },
    mounts: [WRITE],
    handle: async (caller, { params }) => ({ data: await templates.resetEmailTemplate(db, caller, params) }),
  }),
  defineOperation({
    id: 'email.templates.preview',
    method: 'POST',
    path: '/email/templates/:kind/:language/preview',
    summary: 'Preview an email template',
    description:
      'Renders the parts given (a draft) or else those in effect, with sample values (Marta Gil, Costa Homes, a ' +
      'flat in Málaga) overridden by `variables`, and answers the subject, HTML and text an email would have. ' +
      `Stores and sends nothing. The body may be left out. ${MUSTACHE} ${LANGUAGE}`,
    params: EmailTemplateParamsSchema,
    body: ref(PreviewEmailTemplateBodySchema),
    config: { optionalBody: true },
    response: { 200: RenderedEmailResponseSchema },
    mounts: [READ],
    handle: async (caller, { params, body }) => ({
      data: await templates.previewEmailTemplate(db, caller, params, body),
    }),
  }),
  defineOperation({
    id: 'email.settings.get',
    method: 'GET',
    path: '/email/settings',
    summary: "The organization's email settings",
    description: `${SETTINGS} \`updatedAt\` is null until the settings are first changed.`,
    response: { 200: EmailSettingsResponseSchema },
    mounts: [READ],
    handle: async (caller) => ({ data: await settings.getEmailSettings(db, caller) }),
  }),
  defineOperation({
    id: 'email.settings.update',
    method: 'PATCH',
    path: '/email/settings',
    summary: "Change the organization's email settings",
    description: `Only the fields sent change; null clears \`senderName\`, \`replyTo\` or \`alertAddress\`. ${SETTINGS}`,
    body: ref(UpdateEmailSettingsBodySchema),
    response: { 200: EmailSettingsResponseSchema },
    mounts: [WRITE],
    handle: async (caller, { body }) => ({ data: await settings.updateEmailSettings(db, caller, body) }),
  }),
];

/** The email feature's v1 routes: templates and settings (the log and unsubscribe: their own files). */
export const emailRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  mountOperations(app, operations(db));
};
