// An organization's email settings (issue 41): the sender's name, Reply-To, where alerts go without an
// agent, and how many emails an hour. One row, made by the first change; until then the defaults. A test
// twin has its own (test keys try settings without touching the live ones, as with the portal's).
import type { Database, Tx } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { EmailSettings, UpdateEmailSettingsBody } from './email.schema.ts';
import * as store from './email.store.ts';

/** Emails per rolling hour when the organization has not said (the column's default, migration 0037). */
export const DEFAULT_HOURLY_LIMIT = 200;

function toSettings(row: store.EmailSettingsRow | null): EmailSettings {
  if (row === null) {
    return {
      senderName: null,
      replyTo: null,
      alertAddress: null,
      hourlyLimit: DEFAULT_HOURLY_LIMIT,
      updatedAt: null,
    };
  }
  return {
    senderName: row.senderName,
    replyTo: row.replyTo,
    alertAddress: row.alertAddress,
    hourlyLimit: row.hourlyLimit,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The caller's organization's email settings, the defaults until first changed. */
export async function getEmailSettings(db: Database, caller: Caller): Promise<EmailSettings> {
  return toSettings(await readAs(db, caller, (tx) => store.findEmailSettings(tx, caller.organization.id)));
}

/** Changes the fields sent (null clears one); the row is made on the first change. */
export async function updateEmailSettings(
  db: Database,
  caller: Caller,
  body: UpdateEmailSettingsBody,
): Promise<EmailSettings> {
  const trimmed = (value: string | null | undefined) => (typeof value === 'string' ? value.trim() : value);
  const changes = {
    senderName: trimmed(body.senderName),
    replyTo: trimmed(body.replyTo),
    alertAddress: trimmed(body.alertAddress),
    hourlyLimit: body.hourlyLimit,
  };
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  const row = await writeAs(db, caller, (tx) => store.upsertEmailSettings(tx, caller.organization.id, given));
  return toSettings(row);
}

/** The settings an email is sent with: `fromName` is the sender's name, else the organization's. */
export interface EmailSettingsInEffect extends EmailSettings {
  fromName: string;
}

/**
 * For the worker, inside its transaction: the organization's email settings in effect (`organization`:
 * its row when the caller read it already).
 */
export async function emailSettingsOf(
  tx: Tx,
  organizationId: string,
  organization?: store.EmailOrganization | null,
): Promise<EmailSettingsInEffect> {
  const settings = toSettings(await store.findEmailSettings(tx, organizationId));
  organization ??= await store.findOrganization(tx, organizationId);
  return { ...settings, fromName: settings.senderName ?? organization?.name ?? '' };
}
