import { Type, type Static } from '@fastify/type-provider-typebox';
import { LANGUAGE_PATTERN } from '../../platform/http/languages.ts';
import {
  DataOf,
  DateTime,
  ERROR_MESSAGES,
  NotBlank,
  Nullable,
  ref,
  StringEnum,
} from '../../platform/http/schemas.ts';
import { EMAIL_KINDS, VARIABLES } from './email.kinds.ts';
import { MAX_BODY_LENGTH, MAX_SUBJECT_LENGTH } from './email.render.ts';

/** The most emails an organization may send in an hour. */
export const MAX_HOURLY_LIMIT = 10_000;
/** The longest sender name (the From display name). */
export const MAX_SENDER_NAME = 100;

const Kind = StringEnum(EMAIL_KINDS, {
  description:
    'VISIT_CONFIRMATION, VISIT_UPDATED, VISIT_CANCELLED and VISIT_REMINDER go to the visitor; BOOKING_ALERT, ' +
    'LEAD_ALERT and VISIT_REQUEST_ALERT to the agent (or the alert address)',
});
const Language = Type.String({
  pattern: LANGUAGE_PATTERN,
  description: "ISO 639-1: es, en, pt, or another of the organization's languages",
  examples: ['es'],
});
const Variables = Type.Array(Type.String(), {
  description: 'The {{variables}} a template of this kind may name (others are refused)',
  examples: [['agencyName', 'firstName', 'agentName', 'propertyTitle', 'address', 'date', 'time']],
});
const Custom = Type.Boolean({
  description: "The organization's own template (PUT); false: the built-in one is used",
});
const FallbackLanguage = Nullable(
  Type.String({
    description:
      'Set when the language has no template of its own (built-in or custom): the language whose template is ' +
      "used instead (the organization's default language, else en)",
  }),
);
const UpdatedAt = Nullable(DateTime({ description: 'When the custom template was saved; null: built-in' }));

const Subject = (description: string) =>
  NotBlank({ minLength: 1, maxLength: MAX_SUBJECT_LENGTH, description });
const Body = (description: string) => NotBlank({ minLength: 1, maxLength: MAX_BODY_LENGTH, description });
const SUBJECT = `One line, at most ${MAX_SUBJECT_LENGTH} characters; values are not HTML-escaped`;
const HTML = 'The HTML part: every {{value}} is HTML-escaped ({{{value}}} and {{&value}} are refused)';
const TEXT = 'The plain-text part: values as they are';

export const EmailTemplateParamsSchema = Type.Object(
  { kind: Kind, language: Language },
  { additionalProperties: false },
);
export type EmailTemplateParams = Static<typeof EmailTemplateParamsSchema>;

/** The examples of the answers: Costa Homes' own Spanish visit confirmation. */
const EXAMPLE_SUBJECT =
  'Tu visita{{#propertyTitle}} a {{propertyTitle}}{{/propertyTitle}}: {{date}}, {{time}}';
const EXAMPLE_VIEW = {
  kind: 'VISIT_CONFIRMATION',
  language: 'es',
  custom: true,
  fallbackLanguage: null,
  variables: [...VARIABLES.VISIT_CONFIRMATION],
  subject: EXAMPLE_SUBJECT,
  updatedAt: '2027-03-29T10:15:00.000Z',
};

const EXAMPLE_HTML =
  '<p>Hola{{#firstName}} {{firstName}}{{/firstName}},</p><p>Te esperamos el {{date}} a las {{time}}' +
  '{{#address}} en {{address}}{{/address}}.</p><p><a href="{{manageUrl}}">Gestionar la visita</a></p>' +
  '<p>{{agencyName}}</p>';
const EXAMPLE_TEXT =
  'Hola{{#firstName}} {{firstName}}{{/firstName}},\n\nTe esperamos el {{date}} a las {{time}}' +
  '{{#address}} en {{address}}{{/address}}.\n\nGestionar la visita: {{manageUrl}}\n\n{{agencyName}}\n';

/** What the list and the template share: which template, where it comes from, what it may name. */
const TEMPLATE_FIELDS = {
  kind: Kind,
  language: Type.String({ description: 'ISO 639-1', examples: ['es'] }),
  custom: Custom,
  fallbackLanguage: FallbackLanguage,
  variables: Variables,
  subject: Type.String({ description: `The subject in effect. ${SUBJECT}` }),
  updatedAt: UpdatedAt,
};

export const EmailTemplateSummarySchema = Type.Object(TEMPLATE_FIELDS, {
  $id: 'EmailTemplateSummary',
  additionalProperties: false,
  examples: [EXAMPLE_VIEW],
});
export type EmailTemplateSummary = Static<typeof EmailTemplateSummarySchema>;

export const EmailTemplateSchema = Type.Object(
  { ...TEMPLATE_FIELDS, html: Type.String({ description: HTML }), text: Type.String({ description: TEXT }) },
  {
    $id: 'EmailTemplate',
    additionalProperties: false,
    examples: [{ ...EXAMPLE_VIEW, html: EXAMPLE_HTML, text: EXAMPLE_TEXT }],
  },
);
export type EmailTemplateView = Static<typeof EmailTemplateSchema>;

export const PutEmailTemplateBodySchema = Type.Object(
  { subject: Subject(SUBJECT), html: Body(HTML), text: Body(TEXT) },
  {
    $id: 'PutEmailTemplateBody',
    additionalProperties: false,
    description: "The organization's template of a kind in a language: all three parts, as Mustache",
    // A visit confirmation's (the example's path): sampled, the parts would be placeholder text.
    examples: [{ subject: EXAMPLE_SUBJECT, html: EXAMPLE_HTML, text: EXAMPLE_TEXT }],
  },
);
export type PutEmailTemplateBody = Static<typeof PutEmailTemplateBodySchema>;

export const PreviewEmailTemplateBodySchema = Type.Object(
  {
    subject: Type.Optional(Subject(`A draft subject to render instead of the one in effect. ${SUBJECT}`)),
    html: Type.Optional(Body(`A draft HTML part to render instead of the one in effect. ${HTML}`)),
    text: Type.Optional(Body(`A draft text part to render instead of the one in effect. ${TEXT}`)),
    variables: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }),
        Nullable(Type.String({ maxLength: 2000 })),
        {
          maxProperties: 30,
          description:
            'Values over the samples (Marta Gil, Costa Homes, a flat in Málaga); null renders empty and makes its ' +
            "sections false. Only the kind's variables",
          examples: [{ firstName: 'Lucía', address: null }],
        },
      ),
    ),
  },
  {
    $id: 'PreviewEmailTemplateBody',
    additionalProperties: false,
    description: 'Optional: what to render instead of the template in effect and its sample values',
    examples: [{ subject: 'Te esperamos el {{date}} a las {{time}}', variables: { firstName: 'Lucía' } }],
  },
);
export type PreviewEmailTemplateBody = Static<typeof PreviewEmailTemplateBodySchema>;

export const RenderedEmailSchema = Type.Object(
  {
    subject: Type.String({
      examples: ['Tu visita a Piso luminoso con terraza en el Soho: 14/10/2027, 10:30'],
    }),
    html: Type.String(),
    text: Type.String(),
  },
  {
    $id: 'RenderedEmail',
    additionalProperties: false,
    description: 'The email as the worker would send it with these values (without the unsubscribe footer)',
  },
);

/** A display name cannot break the From header: one line, no angle brackets, not blank. */
const SENDER_NAME = '^[^<>\\u0000-\\u001f\\u007f]*[^\\s<>][^<>\\u0000-\\u001f\\u007f]*$';
const Address = (description: string) =>
  Nullable(Type.String({ format: 'email', maxLength: 254, description }));
const REPLY_TO = 'Where replies go (Reply-To); null: no Reply-To';
const ALERT_ADDRESS =
  'Where alerts go when the lead or visit has no agent with an email address; null: no alert then';
const HOURLY_LIMIT = 'Emails sent per rolling hour at most; more wait for the next hour (default 200)';

export const EmailSettingsSchema = Type.Object(
  {
    senderName: Nullable(
      Type.String({
        description: "The From display name; null: the organization's name",
        examples: ['Costa Homes Málaga'],
      }),
    ),
    replyTo: Address(REPLY_TO),
    alertAddress: Address(ALERT_ADDRESS),
    hourlyLimit: Type.Integer({ description: HOURLY_LIMIT }),
    updatedAt: Nullable(DateTime({ description: 'Last change; null: never changed (the defaults)' })),
  },
  {
    $id: 'EmailSettings',
    additionalProperties: false,
    examples: [
      {
        senderName: 'Costa Homes Málaga',
        replyTo: 'info@costa-homes.example',
        alertAddress: 'leads@costa-homes.example',
        hourlyLimit: 200,
        updatedAt: '2027-03-29T10:15:00.000Z',
      },
    ],
  },
);
export type EmailSettings = Static<typeof EmailSettingsSchema>;

export const UpdateEmailSettingsBodySchema = Type.Object(
  {
    senderName: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: MAX_SENDER_NAME,
          pattern: SENDER_NAME,
          description: "The From display name (one line, no < or >); null: the organization's name",
          [ERROR_MESSAGES]: { pattern: 'must be one line of text, not blank, without < or >' },
        }),
      ),
    ),
    replyTo: Type.Optional(Address(REPLY_TO)),
    alertAddress: Type.Optional(Address(ALERT_ADDRESS)),
    hourlyLimit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_HOURLY_LIMIT, description: HOURLY_LIMIT }),
    ),
  },
  {
    $id: 'UpdateEmailSettingsBody',
    additionalProperties: false,
    minProperties: 1,
    examples: [{ senderName: 'Costa Homes Málaga', replyTo: 'info@costa-homes.example', hourlyLimit: 300 }],
  },
);
export type UpdateEmailSettingsBody = Static<typeof UpdateEmailSettingsBodySchema>;

export const EmailTemplateListResponseSchema = Type.Object(
  { data: Type.Array(ref(EmailTemplateSummarySchema)) },
  {
    additionalProperties: false,
    description:
      "Every kind in es, en, pt and the organization's other languages (and any language it has a custom template in), by kind then language",
  },
);
export const EmailTemplateResponseSchema = DataOf(ref(EmailTemplateSchema));
export const RenderedEmailResponseSchema = DataOf(ref(RenderedEmailSchema));
export const EmailSettingsResponseSchema = DataOf(ref(EmailSettingsSchema));

export const emailSchemas = [
  EmailTemplateSummarySchema,
  EmailTemplateSchema,
  PutEmailTemplateBodySchema,
  PreviewEmailTemplateBodySchema,
  RenderedEmailSchema,
  EmailSettingsSchema,
  UpdateEmailSettingsBodySchema,
];
