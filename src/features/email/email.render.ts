// Email templates are Mustache (issue 41, decision 0268): a subject, an HTML part and a text part per
// kind and language. Checked against the variables of their kind when saved, so a typo is a 400 then
// and not an empty gap in every email afterwards; rendered when the worker first takes an email. Pure:
// no I/O, no clock.
import Mustache from 'mustache';
import { Errors } from '../../platform/errors/errors.ts';
import { VARIABLES, type EmailKind } from './email.kinds.ts';

/** One kind's email in one language: what an organization may replace and the worker renders. */
export interface EmailTemplate {
  /** One line, at most MAX_SUBJECT_LENGTH characters; rendered without HTML escaping. */
  subject: string;
  /** The HTML part: every `{{value}}` is HTML-escaped. */
  html: string;
  /** The plain-text part: rendered without escaping. */
  text: string;
}

export const TEMPLATE_PARTS = ['subject', 'html', 'text'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];

export const MAX_SUBJECT_LENGTH = 200;
export const MAX_BODY_LENGTH = 100_000;
const MAX_LENGTH: Record<TemplatePart, number> = {
  subject: MAX_SUBJECT_LENGTH,
  html: MAX_BODY_LENGTH,
  text: MAX_BODY_LENGTH,
};

/** What a variable holds when rendered: null (or a name left out) renders empty and makes sections false. */
export type TemplateVariables = Readonly<Record<string, string | null | undefined>>;

/** Mustache's token: [type, value, start, end, children of a section, ...]. */
type Token = [string, string, number, number, Token[]?, ...unknown[]];

// A writer of our own without a template cache: Mustache's default one keeps every template it ever
// parsed, and organizations' templates change; parsing a few kilobytes is cheap.
const writer = new Mustache.Writer();
(writer as unknown as { templateCache: undefined }).templateCache = undefined;

const identity = (value: string) => value;

/** Tags that name a variable: `{{x}}`, `{{{x}}}` and `{{&x}}`, and sections `{{#x}}` and `{{^x}}`. */
const NAMING = new Set(['name', '&', '#', '^']);
/** `{{{x}}}` and `{{&x}}`: a value unescaped, refused in HTML, where a visitor's text would become markup. */
const UNESCAPED = '&';

function parse(source: string, field: string): Token[] {
  try {
    return writer.parse(source) as Token[];
  } catch (error) {
    // Mustache's own words name the problem and where: `Unclosed section "address" at 120`.
    const reason = error instanceof Error ? error.message : String(error);
    throw Errors.invalidField(field, `is not a valid template: ${reason}`);
  }
}

/** The first tag of `tokens` (and of their sections) that `refuse` names a reason for. */
function firstRefused(tokens: Token[], refuse: (token: Token) => string | null): string | null {
  for (const token of tokens) {
    const reason = refuse(token);
    if (reason !== null) return reason;
    const children = token[4];
    if (token[0] !== '>' && Array.isArray(children)) {
      const inner = firstRefused(children, refuse);
      if (inner !== null) return inner;
    }
  }
  return null;
}

/**
 * Refuses a template its kind's emails cannot render: a part that is not a Mustache template (an
 * unclosed section), a variable the kind does not have (its name, `{{name}}`, `{{{name}}}`, `{{&name}}`,
 * or a section `{{#name}}`/`{{^name}}`), a dotted name, a partial (`{{>x}}`), an unescaped value in the
 * HTML part, a subject over one line or MAX_SUBJECT_LENGTH characters, a body over MAX_BODY_LENGTH.
 * Throws a 400 naming `<prefix>.<part>` and the tag; `prefix` is where the parts are in the request.
 */
export function checkTemplate(kind: EmailKind, template: EmailTemplate, prefix = 'body'): void {
  const allowed = VARIABLES[kind];
  for (const part of TEMPLATE_PARTS) {
    const field = `${prefix}.${part}`;
    const source = template[part];
    if (source.length > MAX_LENGTH[part]) {
      throw Errors.invalidField(field, `must be at most ${MAX_LENGTH[part]} characters`);
    }
    if (part === 'subject' && /[\r\n]/.test(source)) throw Errors.invalidField(field, 'must be one line');
    const reason = firstRefused(parse(source, field), (token) => {
      const [type, name, start, end] = token;
      // How the tag was written (`{{foo}}`, `{{#foo}}`, `{{{foo}}}`), for the message.
      const tag = source.slice(start, end);
      if (type === '>') return `includes a partial ${tag}: templates cannot include others`;
      if (!NAMING.has(type)) return null;
      if (name.includes('.')) return `names ${tag}: dotted names are not variables`;
      if (!allowed.includes(name)) return `names an unknown variable ${tag}; allowed: ${allowed.join(', ')}`;
      if (part === 'html' && type === UNESCAPED) {
        return `inserts ${name} unescaped (${tag}): write {{${name}}}, values are HTML-escaped`;
      }
      return null;
    });
    if (reason !== null) throw Errors.invalidField(field, reason);
  }
}

/** The variables as Mustache's view: only own names (no `constructor` from a prototype), null as empty. */
function viewOf(variables: TemplateVariables): Record<string, string> {
  const view = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(variables)) view[name] = value ?? '';
  return view;
}

/**
 * Renders a template with the values of one email: the HTML part HTML-escaped, the subject and the text
 * as they are; a missing or null value renders empty and makes its sections false. The subject's line
 * breaks (from a value) become spaces, so it stays one header line.
 */
export function renderTemplate(template: EmailTemplate, variables: TemplateVariables): EmailTemplate {
  const view = viewOf(variables);
  const plain = { escape: identity };
  const subject = writer
    .render(template.subject, view, undefined, plain)
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim();
  return {
    subject,
    html: writer.render(template.html, view, undefined, { escape: Mustache.escape }),
    text: writer.render(template.text, view, undefined, plain),
  };
}

/** Every variable's sample value: a visit of Marta Gil's to a flat in Málaga, with Costa Homes' agent Javier. */
const SAMPLES: Readonly<Record<string, string>> = {
  agencyName: 'Costa Homes',
  firstName: 'Marta',
  agentName: 'Javier Ruiz',
  propertyTitle: 'Piso luminoso con terraza en el Soho',
  propertyCode: 'CH-1042',
  address: 'Calle Tomás Heredia 12, 29001 Málaga',
  date: '14/10/2027',
  time: '10:30',
  timezone: 'Europe/Madrid',
  manageUrl: 'https://crm.costa-homes.example/visits/org_0VhJ3k.apt_0VhJ3k.key_1.3f9a2c',
  contactName: 'Marta Gil',
  contactPhone: '+34 612 345 678',
  contactEmail: 'marta.gil@example.com',
  link: 'https://crm.costa-homes.example/leads/lead_0VhJ3kQ2Zt8mX1pR4sT6uE',
  message: 'Hola, ¿sigue disponible? Me interesa verlo esta semana.\nGracias.',
  preferredDate: '14/10/2027',
  preferredTime: '10:00',
};

/** The samples of `kind`'s variables, with `over` instead of some. */
function samplesOf(kind: EmailKind, over: Readonly<Record<string, string>> = {}): Record<string, string> {
  return Object.fromEntries(VARIABLES[kind].map((name) => [name, over[name] ?? SAMPLES[name] ?? '']));
}

/** An agent's alert greets the agent: `firstName` is theirs. */
const AGENT = { firstName: 'Javier' };

/** Realistic values for previews, per kind (a preview's `variables` override any of them). */
export const SAMPLE_VARIABLES: Record<EmailKind, Readonly<Record<string, string>>> = {
  VISIT_CONFIRMATION: samplesOf('VISIT_CONFIRMATION'),
  VISIT_UPDATED: samplesOf('VISIT_UPDATED', { date: '15/10/2027', time: '17:00' }),
  VISIT_CANCELLED: samplesOf('VISIT_CANCELLED'),
  VISIT_REMINDER: samplesOf('VISIT_REMINDER'),
  BOOKING_ALERT: samplesOf('BOOKING_ALERT', {
    ...AGENT,
    link: 'https://crm.costa-homes.example/appointments/apt_0VhJ3kQ2Zt8mX1pR4sT6uE',
  }),
  LEAD_ALERT: samplesOf('LEAD_ALERT', AGENT),
  VISIT_REQUEST_ALERT: samplesOf('VISIT_REQUEST_ALERT', {
    ...AGENT,
    link: 'https://crm.costa-homes.example/visit-requests/vr_0VhJ3kQ2Zt8mX1pR4sT6uE',
  }),
};
