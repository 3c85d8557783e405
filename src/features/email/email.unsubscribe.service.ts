// What an unsubscribe link does (decision 0269): shows whether the contact still gets emails, and
// stops them with a REVOKED EMAIL consent, through the contacts feature's one consent write (history
// row and `contact.consent_changed` in the same transaction). The worker reads that consent before
// every visitor email.
import type { Database, Tx } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import {
  CONSENT_SOURCES,
  findContactInTx,
  lockContact,
  readContactConsents,
  recordConsent,
} from '../contacts/index.ts';
import type { EmailLanguage } from './email.kinds.ts';
import { pageLanguage } from './email.unsubscribe.page.ts';
import { UNSUBSCRIBER, unsubscribeLinkNotFound } from './email.unsubscribe.ts';

export interface UnsubscribeState {
  /** The contact's EMAIL consent is REVOKED: no email goes to them. */
  unsubscribed: boolean;
  language: EmailLanguage;
  /** Who the page names: the organization. */
  agency: string;
}

/**
 * Whether the link's contact is unsubscribed; 404 once the contact is erased or deleted. `lock`: the
 * contact row is locked first, so two clicks at once record one statement.
 */
async function isUnsubscribed(tx: Tx, organizationId: string, contactId: string, lock = false) {
  const contact = await findContactInTx(tx, organizationId, contactId);
  if (!contact) throw unsubscribeLinkNotFound();
  if (lock) await lockContact(tx, organizationId, contactId);
  const { current } = await readContactConsents(tx, organizationId, contactId);
  return { unsubscribed: current.EMAIL?.status === 'REVOKED', language: contact.preferredLanguage };
}

/** The page speaks the contact's language (their emails' language), else the organization's. */
const stateOf = (
  caller: Caller,
  found: { unsubscribed: boolean; language: string | null },
): UnsubscribeState => ({
  unsubscribed: found.unsubscribed,
  language: pageLanguage(found.language ?? caller.organization.defaultLanguage),
  agency: caller.organization.name,
});

/** GET of the link: what the page shows. Changes nothing (mail scanners open links). */
export async function unsubscribeStateOf(db: Database, caller: Caller): Promise<UnsubscribeState> {
  const contactId = caller.keyId;
  const found = await readAs(db, caller, (tx) => isUnsubscribed(tx, caller.organization.id, contactId));
  return stateOf(caller, found);
}

/**
 * POST of the link (the page's button, or a mail client's one click): the contact's EMAIL consent
 * REVOKED, source EMAIL_UNSUBSCRIBE, `contact.consent_changed` recorded, in one transaction. Again:
 * nothing more is written (no history row per repeat: mail clients and people click twice).
 */
export async function unsubscribeContact(db: Database, caller: Caller): Promise<UnsubscribeState> {
  const organizationId = caller.organization.id;
  const contactId = caller.keyId;
  const found = await writeAs(db, caller, async (tx) => {
    const state = await isUnsubscribed(tx, organizationId, contactId, true);
    if (state.unsubscribed) return state;
    const consent = {
      channel: 'EMAIL',
      status: 'REVOKED',
      source: CONSENT_SOURCES.emailUnsubscribe,
    } as const;
    await recordConsent(tx, organizationId, contactId, consent, UNSUBSCRIBER);
    return state;
  });
  return stateOf(caller, { ...found, unsubscribed: true });
}
