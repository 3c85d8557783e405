// An email's Message-ID (RFC 5322) is `<{emails.id}@{domain of EMAIL_FROM}>`: the same on every attempt,
// so a bounce report names the email it is about, and the id alone finds it again (decision 0269).
import type { EmailRow } from '../../db/schema.ts';
import { isId } from '../../platform/ids/ids.ts';
import type { EmailKind } from './email.kinds.ts';

/** The Message-ID of an email, from its id and the service's sending address (EMAIL_FROM). */
export function messageIdOf(emailId: string, from: string): string {
  return `<${emailId}@${from.split('@')[1] || 'localhost'}>`;
}

/**
 * The email id a Message-ID names (with or without its angle brackets), or null when it is not one of
 * ours: the local part must be an `eml_` id. The domain is not checked, so a change of EMAIL_FROM does
 * not orphan the bounces of emails sent before it.
 */
export function emailIdOf(messageId: string): string | null {
  const bare = messageId.trim().replace(/^<(.*)>$/, '$1');
  const at = bare.lastIndexOf('@');
  const local = at === -1 ? bare : bare.slice(0, at);
  return isId(local, 'eml') ? local : null;
}

/** The `email` of the email.* events (email.events.ts), as the row stands now. */
export function emailPayloadOf(row: EmailRow, from: string) {
  return {
    id: row.id,
    kind: row.kind as EmailKind,
    refId: row.refId,
    contactId: row.contactId,
    to: row.toAddress ?? '',
    messageId: messageIdOf(row.id, from),
    status: row.status,
    reason: row.reason,
    attempts: row.attempts,
  };
}
