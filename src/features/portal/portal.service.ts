import type { Database } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { normalizePhone } from '../../platform/text/phone.ts';
import type { Portal, UpdatePortalSettingsBody } from './portal.schema.ts';
import * as store from './portal.store.ts';

function toPortal(record: store.PortalRecord): Portal {
  const { organization, settings } = record;
  return {
    organizationId: organization.id,
    agencyName: settings?.agencyName ?? organization.name,
    logoUrl: settings?.logoUrl ?? null,
    colors: settings?.colors ?? {},
    contact: settings?.contact ?? {},
    socialLinks: settings?.socialLinks ?? {},
    defaultCurrency: organization.defaultCurrency,
    defaultCountry: organization.defaultCountry,
    defaultLanguage: organization.defaultLanguage,
    languages: [organization.defaultLanguage, ...organization.otherLanguages],
    livemode: organization.livemode,
    updatedAt: settings?.updatedAt.toISOString() ?? null,
  };
}

/** The caller's organization's portal branding and contact data; the agency name falls back to the organization's. */
export async function getPortal(db: Database, caller: Caller): Promise<Portal> {
  const organizationId = caller.organization.id;
  const record = await readAs(db, caller, (tx) => store.findPortal(tx, organizationId));
  if (!record) throw Errors.notFound('Organization', organizationId);
  return toPortal(record);
}

/** Drops null members: `{phone: null}` in a change removes the phone. */
function merge<T extends Record<string, unknown>>(
  current: T,
  change: Record<string, unknown> | undefined,
): T {
  if (change === undefined) return current;
  const merged: Record<string, unknown> = { ...current, ...change };
  for (const [name, value] of Object.entries(merged)) if (value === null) delete merged[name];
  return merged as T;
}

/**
 * Changes the caller's organization's portal settings (nested objects merge member by member) and,
 * for a live organization, its default currency and phone country, which its test twin mirrors.
 */
export async function updatePortalSettings(
  db: Database,
  caller: Caller,
  body: UpdatePortalSettingsBody,
): Promise<Portal> {
  const organizationId = caller.organization.id;
  const current = await getPortal(db, caller);
  const contact = merge(current.contact, body.contact);
  const country = body.defaultCountry ?? current.defaultCountry;
  for (const field of ['phone', 'messagingPhone'] as const) {
    const phone = contact[field];
    if (typeof phone === 'string') contact[field] = normalizePhone(phone, country, `body.contact.${field}`);
  }
  if (body.defaultCountry !== undefined || body.defaultCurrency !== undefined) {
    if (!current.livemode) {
      throw Errors.invalidField(
        'body.defaultCountry',
        'and defaultCurrency of a test organization follow its live organization: change them there',
      );
    }
    // The organizations table is a reference table, and the twin's row follows the live one's:
    // written in a system transaction, by the caller's (live) organization id.
    await db.systemTx((tx) =>
      store.updateOrganizationDefaults(tx, organizationId, {
        defaultCountry: body.defaultCountry,
        defaultCurrency: body.defaultCurrency,
      }),
    );
  }
  await writeAs(db, caller, (tx) =>
    store.upsertPortalSettings(tx, organizationId, {
      agencyName: body.agencyName === undefined ? current.agencyName : body.agencyName,
      logoUrl: body.logoUrl === undefined ? current.logoUrl : body.logoUrl,
      colors: merge(current.colors, body.colors) as Record<string, string>,
      contact,
      socialLinks: merge(current.socialLinks, body.socialLinks) as Record<string, string>,
    }),
  );
  return getPortal(db, caller);
}
