// Bounces (issue 41, decision 0269): the mail system reports, signed with EMAIL_BOUNCE_SECRET, that a
// sent email bounced. The email is found by the id its Message-ID carries, across organizations; then,
// in one transaction of its organization, it becomes BOUNCED, a permanent bounce suppresses its
// address, and `email.bounced` is recorded.
import type { Database } from '../../db/database.ts';
import type { EmailRow } from '../../db/schema.ts';
import { operatorCallerOf } from '../../platform/auth/credentials.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { BounceBody, BounceResult } from './email.bounces.schema.ts';
import { findEmailAnywhere, markBounced } from './email.bounces.store.ts';
import { EmailBounced } from './email.events.ts';
import { findEmail } from './email.log.store.ts';
import { emailIdOf, emailPayloadOf } from './email.message-id.ts';
import { insertSuppression } from './email.suppressions.store.ts';

/** The header the bounce hook's signature comes in (`sha256=<hex HMAC-SHA256 of the raw body>`). */
export const BOUNCE_SIGNATURE_HEADER = 'X-Email-Signature';

/** Who `email.bounced` names: the mail system, an integration. */
const MAIL_SYSTEM: Actor = { kind: 'INTEGRATION', userId: null };

/** What the email's status must be for a bounce to apply: it left (SENT), or bounced already (a repeat). */
const BOUNCEABLE = new Set(['SENT', 'BOUNCED']);

const sameAddress = (a: string | null, b: string | undefined) =>
  b === undefined || (a !== null && a.toLowerCase() === b.toLowerCase());

/** The email a bounce is about: its id from the Message-ID, and its organization (null: not ours). */
async function emailOf(db: Database, body: BounceBody) {
  const id = emailIdOf(body.messageId);
  if (id === null) return null;
  const found = await db.systemTx((tx) => findEmailAnywhere(tx, id));
  const [match, ...more] = found.filter((email) => sameAddress(email.toAddress, body.recipient));
  // Two organizations with the same random id and address: no way to tell which, so neither.
  return match && more.length === 0 ? { id, organizationId: match.organizationId } : null;
}

/**
 * Applies one bounce report. Unknown Message-IDs (or another recipient than the email's), emails never
 * sent, and repeats answer 200 with what happened, never an error: a mail system retries errors for
 * days. A soft bounce after a soft one, or any bounce after a permanent one, records nothing again; a
 * permanent one after a soft one suppresses the address and records `email.bounced` again.
 * `from` is EMAIL_FROM (the Message-ID's domain in the event).
 */
export async function receiveBounce(db: Database, from: string, body: BounceBody): Promise<BounceResult> {
  const email = await emailOf(db, body);
  if (!email) return { outcome: 'UNKNOWN', emailId: null, suppressed: false };
  const reason = body.reason?.trim().slice(0, 1000) || null;
  // The mail system acts on the email's organization even while it is inactive or read-only: what it
  // reports is a fact about mail already sent (as the messaging hook records what contacts send).
  const platform = await operatorCallerOf(db, email.organizationId);
  return writeAs(db, platform, async (tx) => {
    const row = await findEmail(tx, email.organizationId, email.id, true);
    if (!row || !BOUNCEABLE.has(row.status))
      return { outcome: 'NOT_SENT', emailId: email.id, suppressed: false } satisfies BounceResult;
    const suppressed =
      body.permanent && row.toAddress !== null
        ? await insertSuppression(tx, {
            organizationId: email.organizationId,
            address: row.toAddress,
            reason: reason ?? 'Permanent bounce',
            emailId: row.id,
          })
        : false;
    if (row.status === 'BOUNCED' && !suppressed)
      return { outcome: 'REPEATED', emailId: row.id, suppressed: body.permanent } satisfies BounceResult;
    const bounced = (await markBounced(tx, email.organizationId, row.id, reason)) as EmailRow;
    await recordEvent(tx, {
      type: EmailBounced.type,
      data: { email: emailPayloadOf(bounced, from), bounce: { permanent: body.permanent, reason } },
      actor: MAIL_SYSTEM,
    });
    return { outcome: 'BOUNCED', emailId: row.id, suppressed: body.permanent } satisfies BounceResult;
  });
}
