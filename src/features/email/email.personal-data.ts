// The personal data the email feature's tables hold, and what erasure and merges do there (docs/privacy.md).
import type { Tx } from '../../db/database.ts';
import type { PersonalData } from '../../platform/privacy/personal-data.ts';
import { findContactInTx, type ContactHandover } from '../contacts/index.ts';
import { EMAIL_KINDS, isVisitorEmail } from './email.kinds.ts';
import { addressesOf, deleteEmailsOf } from './email.log.store.ts';
import { deleteSuppressions } from './email.suppressions.store.ts';

const VISITOR_KINDS = EMAIL_KINDS.filter(isVisitorEmail);

/**
 * A contact erased: their emails go (to them, and the alerts about them), and so do the suppressions of
 * the addresses they were emailed at and of their own (an agent's address an alert bounced from stays).
 * A merge needs nothing here: the merge moves `emails.contact_id` with the other DELETED places.
 */
async function handOverEmails(tx: Tx, handover: ContactHandover): Promise<number> {
  if (handover.to !== null) return 0;
  const { organizationId, from } = handover;
  const contact = await findContactInTx(tx, organizationId, from);
  const addresses = await addressesOf(tx, organizationId, from, VISITOR_KINDS);
  await deleteSuppressions(tx, organizationId, contact?.email ? [...addresses, contact.email] : addresses);
  return deleteEmailsOf(tx, organizationId, from);
}

export const emailPersonalData: PersonalData = {
  places: [
    {
      table: 'emails',
      link: 'contact_id',
      personal: ['to_address', 'subject', 'html', 'text', 'ics'],
      other: ['kind', 'ref_id', 'status', 'reason', 'language', 'transport'],
      onErase: 'DELETED',
      note: 'Emails to the person (visit confirmations, changes, reminders) and alerts about them: deleted with them.',
    },
    {
      table: 'email_suppressions',
      link: null,
      personal: ['address'],
      other: ['reason'],
      onErase: 'COPIES_REDACTED',
      note: 'Addresses that bounced for good: the person’s own are deleted with them.',
    },
    {
      table: 'email_settings',
      link: null,
      personal: [],
      other: ['sender_name', 'reply_to', 'alert_address'],
      onErase: 'NONE',
      note: "The agency's sender name, reply-to and alert address (the agency's own).",
    },
    {
      table: 'email_templates',
      link: null,
      personal: [],
      other: ['kind', 'language', 'subject', 'html', 'text'],
      onErase: 'NONE',
      note: "The agency's own email templates.",
    },
  ],
  handover: { name: 'emails', run: handOverEmails },
};
