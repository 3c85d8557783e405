// The worker's email.send job (decision 0267): claims due emails with a lease, composes each once (kept
// with the email), sends it with its stable Message-ID outside any transaction, and records the outcome
// with its event (email.sent, email.failed) in one transaction. A worker killed mid-send leaves the
// email SENDING; when the lease ends another sends it again, the same message with the same Message-ID
// (at least once; a receiving server or mail client drops the repeat by its Message-ID).
import type { Database, Tx } from '../../db/database.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { composeEmail, recheckEmail, senderContext } from './email.compose.ts';
import { EmailFailed, EmailSent } from './email.events.ts';
import { emailPayloadOf, messageIdOf } from './email.message-id.ts';
import * as queue from './email.queue.store.ts';
import type { OutgoingEmail, Transports } from './email.transport.ts';
import { unsubscribeUrl } from './email.unsubscribe.ts';

/** Emails claimed per round. */
const BATCH = 20;
const HOUR_MS = 3_600_000;
/** Waits before the 2nd, 3rd, … attempt after a failed send; after the last, the email is FAILED. */
export const EMAIL_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * HOUR_MS, 6 * HOUR_MS];

/** Starts of one email's send at most: each failed attempt and the last one. */
const MAX_ATTEMPTS = EMAIL_RETRY_DELAYS_MS.length + 1;

/** How long a claimed email is its worker's: room for a whole SMTP exchange (connect, greeting, data). */
export const emailLeaseMs = (timeoutMs: number) => 3 * timeoutMs + 5_000;

export interface EmailWorkerDependencies {
  db: Database;
  secrets: SecretBox;
  transports: Transports;
  /** Where the links in emails point: PUBLIC_URL, else the service's own address. */
  origin: string;
  /** EMAIL_FROM: the sending address; its domain is the Message-ID's. */
  from: string;
  leaseMs: number;
  now?: () => Date;
  log?: { error(details: object, message: string): void };
}

export interface EmailTally {
  sent: number;
  skipped: number;
  failed: number;
  retried: number;
  held: number;
}

const SYSTEM = { kind: 'SYSTEM', userId: null } as const;

/** Runs the queue until no email is due. */
export async function sendDueEmails(deps: EmailWorkerDependencies): Promise<EmailTally> {
  const tally: EmailTally = { sent: 0, skipped: 0, failed: 0, retried: 0, held: 0 };
  const now = deps.now ?? (() => new Date());
  for (;;) {
    const claimed = await deps.db.systemTx((tx) => queue.claimDueEmails(tx, now(), deps.leaseMs, BATCH));
    for (const email of claimed) {
      try {
        await sendOne(deps, email, now, tally);
      } catch (error) {
        // The lease brings it back: logged, never lost.
        deps.log?.error({ err: error, emailId: email.id }, 'email send failed');
      }
    }
    if (claimed.length < BATCH) return tally;
  }
}

type Prepared = { outgoing: OutgoingEmail; sandbox: boolean } | null;

/** In the organization's transaction: composes the email once, or settles it when it is not to go. */
async function prepare(
  tx: Tx,
  deps: EmailWorkerDependencies,
  claimed: queue.ClaimedEmail,
  now: Date,
  tally: EmailTally,
): Promise<Prepared> {
  const { organizationId, id } = claimed;
  const row = await queue.lockEmail(tx, organizationId, id);
  const sender = await senderContext(tx, organizationId);
  if (!row || !sender || row.status !== 'SENDING' || row.attempts !== claimed.attempts) return null;
  if (claimed.attempts > MAX_ATTEMPTS) {
    // Every failed attempt settles itself: more starts than attempts means sends that ended their worker
    // (killed, out of memory). Starting it again would only repeat that.
    const reason = `interrupted before its outcome was recorded, ${claimed.attempts - 1} starts: not sent again`;
    const failed = await queue.settleEmail(tx, organizationId, id, { status: 'FAILED', reason }, now);
    await recordEvent(tx, {
      type: EmailFailed.type,
      data: { email: emailPayloadOf(failed, deps.from) },
      actor: SYSTEM,
    });
    tally.failed += 1;
    return null;
  }
  const sent = await queue.sentSince(tx, organizationId, new Date(now.getTime() - HOUR_MS));
  if (sent.count >= sender.hourlyLimit) {
    const at = new Date((sent.oldest ?? now).getTime() + HOUR_MS);
    await queue.requeueEmail(tx, organizationId, id, { at, reason: 'HOURLY_LIMIT', uncount: true }, now);
    tally.held += 1;
    return null;
  }
  const settings = { secrets: deps.secrets, origin: deps.origin, from: deps.from };
  let ready = row;
  const composed = row.subject === null ? await composeEmail(tx, row, sender, settings, now) : null;
  const verdict = composed ?? (await recheckEmail(tx, row));
  if ('skip' in verdict) {
    await queue.settleEmail(tx, organizationId, id, { status: 'SKIPPED', reason: verdict.skip }, now);
    tally.skipped += 1;
    return null;
  }
  if (composed !== null && 'rendered' in composed) {
    await queue.saveRendered(tx, organizationId, id, composed.rendered);
    ready = { ...row, ...composed.rendered };
  }
  const unsubscribe =
    ready.contactId !== null && verdict.visitor
      ? unsubscribeUrl(deps.secrets, deps.origin, organizationId, ready.contactId)
      : null;
  const method = ready.ics?.includes('METHOD:CANCEL') ? 'CANCEL' : 'REQUEST';
  return {
    sandbox: sender.testMode,
    outgoing: {
      from: { name: sender.senderName ?? sender.organizationName, address: deps.from },
      replyTo: sender.replyTo,
      to: ready.toAddress as string,
      subject: ready.subject as string,
      text: ready.text as string,
      html: ready.html as string,
      messageId: messageIdOf(id, deps.from),
      headers:
        unsubscribe === null
          ? { 'Auto-Submitted': 'auto-generated' }
          : {
              'List-Unsubscribe': `<${unsubscribe}>`,
              'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            },
      ics: ready.ics === null ? null : { method, content: ready.ics },
    },
  };
}

async function sendOne(
  deps: EmailWorkerDependencies,
  claimed: queue.ClaimedEmail,
  now: () => Date,
  tally: EmailTally,
): Promise<void> {
  const { organizationId, id } = claimed;
  // eslint-disable-next-line no-restricted-syntax -- the email worker job: the queued email's organization, no request caller.
  const prepared = await deps.db.tenantTx(organizationId, (tx) => prepare(tx, deps, claimed, now(), tally));
  if (prepared === null) return;
  const transport = prepared.sandbox ? deps.transports.sandbox : deps.transports.live;
  let failure: string | null = null;
  if (transport === null) failure = 'EMAIL_OFF';
  else {
    try {
      await transport.send(prepared.outgoing);
    } catch (error) {
      failure = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    }
  }
  // eslint-disable-next-line no-restricted-syntax -- the email worker job: the queued email's organization, no request caller.
  await deps.db.tenantTx(organizationId, async (tx) => {
    const at = now();
    if (failure === 'EMAIL_OFF') {
      await queue.settleEmail(tx, organizationId, id, { status: 'SKIPPED', reason: failure }, at);
      tally.skipped += 1;
    } else if (failure === null) {
      const row = await queue.settleEmail(
        tx,
        organizationId,
        id,
        { status: 'SENT', reason: null, transport: transport?.name ?? 'SANDBOX' },
        at,
      );
      await recordEvent(tx, {
        type: EmailSent.type,
        data: { email: emailPayloadOf(row, deps.from) },
        actor: SYSTEM,
      });
      tally.sent += 1;
    } else if (claimed.attempts >= MAX_ATTEMPTS) {
      const row = await queue.settleEmail(tx, organizationId, id, { status: 'FAILED', reason: failure }, at);
      await recordEvent(tx, {
        type: EmailFailed.type,
        data: { email: emailPayloadOf(row, deps.from) },
        actor: SYSTEM,
      });
      tally.failed += 1;
    } else {
      const delay = EMAIL_RETRY_DELAYS_MS[claimed.attempts - 1] as number;
      await queue.requeueEmail(
        tx,
        organizationId,
        id,
        { at: new Date(at.getTime() + delay), reason: failure },
        at,
      );
      tally.retried += 1;
    }
  });
}
