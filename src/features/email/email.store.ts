// The SQL of an organization's email settings and templates (the log and suppressions: the worker's
// files). Every function takes the organization first and filters by it; RLS is the second wall.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { emailSettings, emailTemplates, organizations } from '../../db/schema.ts';

export type EmailSettingsRow = typeof emailSettings.$inferSelect;
export type EmailTemplateRow = typeof emailTemplates.$inferSelect;

/** What templates, settings and the worker need of the organization: name, languages, zone, test twin. */
export interface EmailOrganization {
  name: string;
  defaultLanguage: string;
  otherLanguages: string[];
  timezone: string;
  /** Set on a test twin: its emails go to the sandbox only. */
  liveOrganizationId: string | null;
}

/** The organization's name, languages and zone (its own row: RLS shows no other); null when unknown. */
export async function findOrganization(tx: Tx, organizationId: string): Promise<EmailOrganization | null> {
  const rows = await tx
    .select({
      name: organizations.name,
      defaultLanguage: organizations.defaultLanguage,
      otherLanguages: organizations.otherLanguages,
      timezone: organizations.timezone,
      liveOrganizationId: organizations.liveOrganizationId,
    })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  return rows[0] ?? null;
}

export async function findEmailSettings(tx: Tx, organizationId: string): Promise<EmailSettingsRow | null> {
  const rows = await tx
    .select()
    .from(emailSettings)
    .where(eq(emailSettings.organizationId, organizationId))
    .limit(1);
  return rows[0] ?? null;
}

/** Creates the settings row on the first change, with the defaults for what `changes` leaves out. */
export async function upsertEmailSettings(
  tx: Tx,
  organizationId: string,
  changes: Partial<Pick<EmailSettingsRow, 'senderName' | 'replyTo' | 'alertAddress' | 'hourlyLimit'>>,
): Promise<EmailSettingsRow> {
  const rows = await tx
    .insert(emailSettings)
    .values({ organizationId, ...changes })
    .onConflictDoUpdate({ target: emailSettings.organizationId, set: { ...changes, updatedAt: sql`now()` } })
    .returning();
  return rows[0] as EmailSettingsRow;
}

/** The organization's own templates, every kind and language, by kind then language. */
export async function listEmailTemplates(tx: Tx, organizationId: string): Promise<EmailTemplateRow[]> {
  return tx
    .select()
    .from(emailTemplates)
    .where(eq(emailTemplates.organizationId, organizationId))
    .orderBy(asc(emailTemplates.kind), asc(emailTemplates.language));
}

/** The organization's template of a kind in a language (the table's key). */
const templateKey = (organizationId: string, kind: string, language: string) =>
  and(
    eq(emailTemplates.organizationId, organizationId),
    eq(emailTemplates.kind, kind),
    eq(emailTemplates.language, language),
  );

/** The organization's own templates of `kind` in any of `languages`. */
export async function findEmailTemplates(
  tx: Tx,
  organizationId: string,
  kind: string,
  languages: readonly string[],
): Promise<EmailTemplateRow[]> {
  return tx
    .select()
    .from(emailTemplates)
    .where(
      and(
        eq(emailTemplates.organizationId, organizationId),
        eq(emailTemplates.kind, kind),
        inArray(emailTemplates.language, [...languages]),
      ),
    );
}

/** Saves the organization's template of a kind in a language, replacing the one it had. */
export async function upsertEmailTemplate(
  tx: Tx,
  row: Pick<EmailTemplateRow, 'organizationId' | 'kind' | 'language' | 'subject' | 'html' | 'text'>,
): Promise<EmailTemplateRow> {
  const { subject, html, text } = row;
  const rows = await tx
    .insert(emailTemplates)
    .values(row)
    .onConflictDoUpdate({
      target: [emailTemplates.organizationId, emailTemplates.kind, emailTemplates.language],
      set: { subject, html, text, updatedAt: sql`now()` },
    })
    .returning();
  return rows[0] as EmailTemplateRow;
}

/** Deletes the organization's template of a kind in a language; false when it had none. */
export async function deleteEmailTemplate(
  tx: Tx,
  organizationId: string,
  kind: string,
  language: string,
): Promise<boolean> {
  const rows = await tx
    .delete(emailTemplates)
    .where(templateKey(organizationId, kind, language))
    .returning({ kind: emailTemplates.kind });
  return rows.length > 0;
}
