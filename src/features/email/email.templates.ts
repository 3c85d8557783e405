// The built-in email templates (issue 41, decision 0268): every kind in es, en and pt, what an
// organization gets until it writes its own. One layout makes them all: a greeting, a few sentences, the
// details of the visit or of the person, a button, a signature; each language file gives only the words
// (email.templates.es.ts, .en.ts, .pt.ts). Visitor emails get their unsubscribe footer from the service,
// below any template, so none of these carries one.
import { EMAIL_KINDS, type EmailKind, type EmailLanguage } from './email.kinds.ts';
import type { DetailLabels, LanguageCopy } from './email.copy.ts';
import type { EmailTemplate } from './email.render.ts';
import { en } from './email.templates.en.ts';
import { es } from './email.templates.es.ts';
import { pt } from './email.templates.pt.ts';

/** One row of the details: shown only when `when` (a variable) is set; `href` makes the value a link in HTML. */
interface DetailRow {
  label: string;
  value: string;
  when?: string;
  href?: string;
  /** A visitor's free text: its line breaks kept. */
  multiline?: boolean;
}

const visitRows = (l: DetailLabels): DetailRow[] => [
  { label: l.property, value: '{{propertyTitle}}', when: 'propertyTitle' },
  { label: l.date, value: '{{date}}, {{time}}{{#timezone}} ({{timezone}}){{/timezone}}' },
  { label: l.address, value: '{{address}}', when: 'address' },
  { label: l.agent, value: '{{agentName}}', when: 'agentName' },
];

const personRows = (l: DetailLabels): DetailRow[] => [
  { label: l.name, value: '{{contactName}}', when: 'contactName' },
  { label: l.phone, value: '{{contactPhone}}', when: 'contactPhone', href: 'tel:{{contactPhone}}' },
  { label: l.email, value: '{{contactEmail}}', when: 'contactEmail', href: 'mailto:{{contactEmail}}' },
];

const listingRow = (l: DetailLabels): DetailRow => ({
  label: l.property,
  value: '{{propertyTitle}}{{#propertyCode}} ({{propertyCode}}){{/propertyCode}}',
  when: 'propertyTitle',
});

const messageRow = (l: DetailLabels): DetailRow => ({
  label: l.message,
  value: '{{message}}',
  when: 'message',
  multiline: true,
});

/** The details each kind shows, in its variables only. */
const DETAILS: Record<EmailKind, (l: DetailLabels) => DetailRow[]> = {
  VISIT_CONFIRMATION: visitRows,
  VISIT_UPDATED: visitRows,
  VISIT_CANCELLED: visitRows,
  VISIT_REMINDER: visitRows,
  BOOKING_ALERT: (l) => [...personRows(l), ...visitRows(l)],
  LEAD_ALERT: (l) => [...personRows(l), listingRow(l), messageRow(l)],
  VISIT_REQUEST_ALERT: (l) => [
    ...personRows(l),
    listingRow(l),
    { label: l.preferredDate, value: '{{preferredDate}}', when: 'preferredDate' },
    { label: l.preferredTime, value: '{{preferredTime}}', when: 'preferredTime' },
    messageRow(l),
  ],
};

/** Where each kind's button goes: the visitor's manage link, or the record in the CRM for the agent. */
const ACTION_URL: Record<EmailKind, string> = {
  VISIT_CONFIRMATION: 'manageUrl',
  VISIT_UPDATED: 'manageUrl',
  VISIT_CANCELLED: 'manageUrl',
  VISIT_REMINDER: 'manageUrl',
  BOOKING_ALERT: 'link',
  LEAD_ALERT: 'link',
  VISIT_REQUEST_ALERT: 'link',
};

const P = '<p style="margin:0 0 16px;">';
const LABEL_CELL = 'padding:6px 16px 6px 0;color:#6b7280;vertical-align:top;white-space:nowrap;';
const VALUE_CELL = 'padding:6px 0;vertical-align:top;';
const BUTTON =
  'display:inline-block;background-color:#1d4ed8;color:#ffffff;text-decoration:none;' +
  'padding:10px 18px;border-radius:6px;font-weight:bold;';

/** `{{#name}}inner{{/name}}`, or `inner` when no variable decides. */
const when = (name: string | undefined, inner: string) =>
  name === undefined ? inner : `{{#${name}}}${inner}{{/${name}}}`;

function htmlOf(copy: LanguageCopy, kind: EmailKind): string {
  const own = copy.kinds[kind];
  const url = ACTION_URL[kind];
  const rows = DETAILS[kind](copy.labels).map((row) => {
    const value =
      row.href === undefined ? row.value : `<a href="${row.href}" style="color:#1d4ed8;">${row.value}</a>`;
    const style = row.multiline ? `${VALUE_CELL}white-space:pre-line;` : VALUE_CELL;
    return when(
      row.when,
      `<tr><td style="${LABEL_CELL}">${row.label}</td><td style="${style}">${value}</td></tr>`,
    );
  });
  const button =
    own.action === undefined
      ? ''
      : when(url, `<p style="margin:24px 0;"><a href="{{${url}}}" style="${BUTTON}">${own.action}</a></p>`);
  return [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head>',
    '<body style="margin:0;padding:0;background-color:#f3f4f6;">',
    '<div style="max-width:560px;margin:0 auto;padding:24px 16px;font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#1f2937;">',
    '<div style="background-color:#ffffff;border-radius:8px;padding:24px;">',
    `${P}${copy.greeting}</p>`,
    ...own.intro.map((line) => `${P}${line}</p>`),
    '<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:0 0 16px;">',
    ...rows,
    '</table>',
    button,
    ...(own.outro ?? []).map((line) => `${P}${line}</p>`),
    `<p style="margin:16px 0 0;">${copy.signature.join('<br>')}</p>`,
    '</div>',
    '</div>',
    '</body></html>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** A standalone section around a line: Mustache drops the tag lines, so a missing value leaves no gap. */
const textLine = (name: string | undefined, line: string) =>
  name === undefined ? line : `{{#${name}}}\n${line}\n{{/${name}}}`;

function textOf(copy: LanguageCopy, kind: EmailKind): string {
  const own = copy.kinds[kind];
  const url = ACTION_URL[kind];
  const rows = DETAILS[kind](copy.labels).map((row) =>
    textLine(row.when, row.multiline ? `${row.label}:\n${row.value}` : `${row.label}: ${row.value}`),
  );
  const paragraphs = [
    copy.greeting,
    ...own.intro,
    rows.join('\n'),
    ...(own.action === undefined ? [] : [textLine(url, `${own.action}: {{${url}}}`)]),
    ...(own.outro ?? []),
    copy.signature.join('\n'),
  ];
  return `${paragraphs.join('\n\n')}\n`;
}

/** A language's copy as the three parts of each kind's template. */
function templatesOf(copy: LanguageCopy): Record<EmailKind, EmailTemplate> {
  return Object.fromEntries(
    EMAIL_KINDS.map((kind) => [
      kind,
      { subject: copy.kinds[kind].subject, html: htmlOf(copy, kind), text: textOf(copy, kind) },
    ]),
  ) as Record<EmailKind, EmailTemplate>;
}

/** The built-in template of every kind in every built-in language. */
export const BUILT_IN_TEMPLATES: Record<EmailLanguage, Record<EmailKind, EmailTemplate>> = {
  es: templatesOf(es),
  en: templatesOf(en),
  pt: templatesOf(pt),
};
