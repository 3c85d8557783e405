// An organization's email templates (issue 41, decision 0268): the built-in ones of every kind in es,
// en and pt, replaced kind by kind and language by language by its own (checked against the kind's
// variables when saved), previewed with sample values, and what the worker renders each email with.
import type { Database, Tx } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import {
  EMAIL_KINDS,
  EMAIL_LANGUAGES,
  VARIABLES,
  type EmailKind,
  type EmailLanguage,
} from './email.kinds.ts';
import { checkTemplate, renderTemplate, SAMPLE_VARIABLES, type EmailTemplate } from './email.render.ts';
import type {
  EmailTemplateParams,
  EmailTemplateSummary,
  EmailTemplateView,
  PreviewEmailTemplateBody,
  PutEmailTemplateBody,
} from './email.schema.ts';
import { BUILT_IN_TEMPLATES } from './email.templates.ts';
import * as store from './email.store.ts';

/** The language every chain of fallbacks ends in: it always has built-in templates. */
const LAST_RESORT: EmailLanguage = 'en';

interface Languages {
  defaultLanguage: string;
  otherLanguages: readonly string[];
}

const isBuiltIn = (language: string): language is EmailLanguage =>
  (EMAIL_LANGUAGES as readonly string[]).includes(language);

/** The languages an organization writes templates in: the built-in ones, then its own. */
function servedLanguages(organization: Languages): string[] {
  return [...new Set([...EMAIL_LANGUAGES, organization.defaultLanguage, ...organization.otherLanguages])];
}

/** The languages tried in turn for `language`: it, the organization's default, then English. */
const chainOf = (language: string, defaultLanguage: string) => [
  ...new Set([language, defaultLanguage, LAST_RESORT]),
];

/** The template in effect for a kind and language, and where it comes from. */
interface Resolved {
  template: EmailTemplate;
  /** The language whose template it is (another one when `language` has none). */
  from: string;
  /** The organization's own template of exactly this kind and language, if any. */
  own: store.EmailTemplateRow | null;
}

/** The first of `language`'s chain with a template: the organization's own, else a built-in one. */
function resolve(
  kind: EmailKind,
  language: string,
  defaultLanguage: string,
  custom: ReadonlyMap<string, store.EmailTemplateRow>,
): Resolved {
  const own = custom.get(language) ?? null;
  for (const candidate of chainOf(language, defaultLanguage)) {
    const row = custom.get(candidate);
    if (row) return { template: row, from: candidate, own };
    if (isBuiltIn(candidate)) return { template: BUILT_IN_TEMPLATES[candidate][kind], from: candidate, own };
  }
  return { template: BUILT_IN_TEMPLATES[LAST_RESORT][kind], from: LAST_RESORT, own };
}

const partsOf = ({ subject, html, text }: EmailTemplate): EmailTemplate => ({ subject, html, text });

function viewOf(kind: EmailKind, language: string, resolved: Resolved): EmailTemplateView {
  return {
    kind,
    language,
    custom: resolved.own !== null,
    fallbackLanguage: resolved.from === language ? null : resolved.from,
    variables: [...VARIABLES[kind]],
    ...partsOf(resolved.template),
    updatedAt: resolved.own?.updatedAt.toISOString() ?? null,
  };
}

/** The organization's own templates of `kind` in the languages `language` may fall back to, by language. */
async function customOf(tx: Tx, organizationId: string, kind: EmailKind, chain: string[]) {
  const rows = await store.findEmailTemplates(tx, organizationId, kind, chain);
  return new Map(rows.map((row) => [row.language, row]));
}

/** 400 naming `path.language` when the organization neither serves it nor has a template in it. */
function requireLanguage(caller: Caller, language: string, custom: boolean): void {
  const served = servedLanguages(caller.organization);
  if (custom || served.includes(language)) return;
  throw Errors.invalidField(
    'path.language',
    `is not one of the organization's languages: ${served.join(', ')}`,
  );
}

/** Resolves the template of the path for the caller, refusing a language the organization does not use. */
async function resolveFor(
  tx: Tx,
  caller: Caller,
  { kind, language }: EmailTemplateParams,
): Promise<Resolved> {
  const { id, defaultLanguage } = caller.organization;
  const custom = await customOf(tx, id, kind, chainOf(language, defaultLanguage));
  requireLanguage(caller, language, custom.has(language));
  return resolve(kind, language, defaultLanguage, custom);
}

/**
 * Every kind in every language the organization writes in (es, en, pt, its own, and any it has a
 * template in), with the subject in effect: its own template or the built-in one.
 */
export async function listEmailTemplates(db: Database, caller: Caller): Promise<EmailTemplateSummary[]> {
  const { id, defaultLanguage } = caller.organization;
  const rows = await readAs(db, caller, (tx) => store.listEmailTemplates(tx, id));
  const languages = [
    ...new Set([...servedLanguages(caller.organization), ...rows.map((row) => row.language)]),
  ];
  return EMAIL_KINDS.flatMap((kind) => {
    const custom = new Map(rows.filter((row) => row.kind === kind).map((row) => [row.language, row]));
    return languages.map((language) => {
      const view = viewOf(kind, language, resolve(kind, language, defaultLanguage, custom));
      return {
        kind,
        language,
        custom: view.custom,
        fallbackLanguage: view.fallbackLanguage,
        variables: view.variables,
        subject: view.subject,
        updatedAt: view.updatedAt,
      };
    });
  });
}

/** The template in effect for a kind and language: the organization's own, else the built-in one. */
export async function getEmailTemplate(
  db: Database,
  caller: Caller,
  params: EmailTemplateParams,
): Promise<EmailTemplateView> {
  const resolved = await readAs(db, caller, (tx) => resolveFor(tx, caller, params));
  return viewOf(params.kind, params.language, resolved);
}

/**
 * Replaces the organization's template of a kind in one of its languages (es, en, pt or its own), after
 * checking every part against the kind's variables (400 naming the part and the tag).
 */
export async function putEmailTemplate(
  db: Database,
  caller: Caller,
  { kind, language }: EmailTemplateParams,
  body: PutEmailTemplateBody,
): Promise<EmailTemplateView> {
  requireLanguage(caller, language, false);
  checkTemplate(kind, body);
  const row = await writeAs(db, caller, (tx) =>
    store.upsertEmailTemplate(tx, {
      organizationId: caller.organization.id,
      kind,
      language,
      ...partsOf(body),
    }),
  );
  return viewOf(kind, language, { template: row, from: language, own: row });
}

/**
 * Deletes the organization's template of a kind in a language: the built-in one (or the fallback
 * language's) is in effect again, and answered. 404 when the organization has none of its own there.
 */
export async function resetEmailTemplate(
  db: Database,
  caller: Caller,
  params: EmailTemplateParams,
): Promise<EmailTemplateView> {
  const { id, defaultLanguage } = caller.organization;
  const { kind, language } = params;
  const resolved = await writeAs(db, caller, async (tx) => {
    if (!(await store.deleteEmailTemplate(tx, id, kind, language))) return null;
    return resolve(
      kind,
      language,
      defaultLanguage,
      await customOf(tx, id, kind, chainOf(language, defaultLanguage)),
    );
  });
  if (resolved === null) throw Errors.notFound('Custom email template', `${kind}/${language}`);
  return viewOf(kind, language, resolved);
}

/**
 * Renders the draft parts given (else those in effect) with the kind's sample values, overridden by
 * `variables` (400 for a name that is not the kind's). Stores nothing.
 */
export async function previewEmailTemplate(
  db: Database,
  caller: Caller,
  params: EmailTemplateParams,
  body: PreviewEmailTemplateBody,
): Promise<EmailTemplate> {
  const allowed = VARIABLES[params.kind];
  for (const name of Object.keys(body.variables ?? {})) {
    if (!allowed.includes(name)) {
      throw Errors.invalidField(
        `body.variables.${name}`,
        `is not a variable of ${params.kind}; allowed: ${allowed.join(', ')}`,
      );
    }
  }
  const resolved = await readAs(db, caller, (tx) => resolveFor(tx, caller, params));
  const draft: EmailTemplate = {
    subject: body.subject ?? resolved.template.subject,
    html: body.html ?? resolved.template.html,
    text: body.text ?? resolved.template.text,
  };
  checkTemplate(params.kind, draft);
  return renderTemplate(draft, { ...SAMPLE_VARIABLES[params.kind], ...body.variables });
}

/** The template an email of `kind` is rendered with, and the language it is in. */
export interface EffectiveTemplate extends EmailTemplate {
  /** The language of the template used: `language`, else the organization's default, else en. */
  language: string;
  /** The organization's own template (not a built-in one). */
  custom: boolean;
}

/**
 * For the worker, inside its transaction: the template of `kind` in `language` (the contact's): the
 * organization's own, else the built-in one; a language with neither falls back to the organization's
 * default language (`defaultLanguage` when the caller has it, else read), then to English.
 */
export async function effectiveTemplate(
  tx: Tx,
  organizationId: string,
  kind: EmailKind,
  language: string,
  defaultLanguage?: string,
): Promise<EffectiveTemplate> {
  defaultLanguage ??= (await store.findOrganization(tx, organizationId))?.defaultLanguage ?? LAST_RESORT;
  const custom = await customOf(tx, organizationId, kind, chainOf(language, defaultLanguage));
  const resolved = resolve(kind, language, defaultLanguage, custom);
  return { ...partsOf(resolved.template), language: resolved.from, custom: custom.has(resolved.from) };
}
