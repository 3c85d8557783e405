import type { Database } from '../../db/database.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { toE164 } from '../../platform/text/phone.ts';
import { operatorCallerOf } from '../../platform/auth/credentials.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import { findContactByPhone, upsertPortalContact } from '../contacts/index.ts';
import {
  applyStatus,
  type MessageStatus,
  type MessageType,
  type MessagingContext,
  PLATFORM,
  recordInbound,
} from '../conversations/index.ts';
import { findMessagingNumberAnywhere } from '../messaging-setup/index.ts';

// The Cloud API's webhook payload, as far as it is read here. Everything else is ignored.
interface HookMessage {
  from?: unknown;
  id?: unknown;
  timestamp?: unknown;
  type?: unknown;
  text?: { body?: unknown };
  button?: { text?: unknown };
  interactive?: { button_reply?: { title?: unknown }; list_reply?: { title?: unknown } };
}
interface HookStatus {
  id?: unknown;
  status?: unknown;
  errors?: { title?: unknown; message?: unknown; code?: unknown }[];
}
interface HookValue {
  contacts?: { wa_id?: unknown; profile?: { name?: unknown } }[];
  messages?: HookMessage[];
  statuses?: HookStatus[];
}
export interface HookPayload {
  entry?: { changes?: { field?: unknown; value?: HookValue }[] }[];
}

const RECEIPTS: Record<string, Exclude<MessageStatus, 'QUEUED'>> = {
  sent: 'SENT',
  delivered: 'DELIVERED',
  read: 'READ',
  failed: 'FAILED',
};

const str = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** The text a contact sent, or the kind of a non-text message (`[image]`). */
function contentOf(message: HookMessage): { type: MessageType; body: string } | null {
  const kind = str(message.type) ?? 'text';
  const text =
    str(message.text?.body) ??
    str(message.button?.text) ??
    str(message.interactive?.button_reply?.title) ??
    str(message.interactive?.list_reply?.title);
  if (text !== null) return { type: 'TEXT', body: text.slice(0, 4096) };
  if (kind === 'text') return null;
  return { type: 'OTHER', body: `[${kind.slice(0, 40)}]` };
}

/** The message's time (seconds since the epoch), never later than now. */
function timeOf(value: unknown, now: Date): Date {
  const seconds = typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(seconds)) return now;
  return new Date(Math.min(seconds * 1000, now.getTime()));
}

function failureOf(status: HookStatus): string | null {
  const first = status.errors?.[0];
  if (!first) return null;
  const words = str(first.message) ?? str(first.title);
  return words
    ? `${words}${first.code !== undefined ? ` (code ${String(first.code)})` : ''}`.slice(0, 500)
    : null;
}

/**
 * POST /hooks/messaging/{numberId}: the platform's notifications for one of our numbers. Inbound
 * messages are recorded (unknown numbers become contacts, source MESSAGING), receipts move outbound
 * messages on; repeats and anything unreadable are counted as ignored, never a failure (a failure
 * makes the platform retry for days). One transaction for the whole call.
 */
export async function handleMessagingHook(
  db: Database,
  context: MessagingContext,
  numberId: string,
  payload: HookPayload,
): Promise<{ received: number; statuses: number; ignored: number }> {
  const number = await findMessagingNumberAnywhere(db, numberId);
  if (!number) throw Errors.notFound('Messaging number', numberId);
  const organizationId = number.organizationId;
  const now = context.clock();
  const counts = { received: 0, statuses: 0, ignored: 0 };
  // The provider's signed hook acts as the platform on the number's organization: what its contacts
  // send is recorded even while the organization is inactive or read-only (nothing lost meanwhile).
  const platform = await operatorCallerOf(db, organizationId);

  await writeAs(db, platform, async (tx, organization) => {
    for (const entry of Array.isArray(payload.entry) ? payload.entry : []) {
      for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
        const value = change?.value;
        if (!value || typeof value !== 'object') continue;
        const names = new Map<string, string>();
        for (const person of Array.isArray(value.contacts) ? value.contacts : []) {
          const waId = str(person?.wa_id);
          const name = str(person?.profile?.name);
          if (waId && name) names.set(waId, name.slice(0, 100));
        }
        for (const message of Array.isArray(value.messages) ? value.messages : []) {
          const from = str(message?.from);
          const content = message ? contentOf(message) : null;
          const phone = from ? toE164(`+${from.replace(/^\+/, '')}`, organization.defaultCountry) : null;
          if (!phone || !content) {
            counts.ignored += 1;
            continue;
          }
          const contact =
            (await findContactByPhone(tx, organizationId, phone)) ??
            (
              await upsertPortalContact(
                tx,
                organizationId,
                { firstName: names.get(from as string) ?? phone, phone, source: 'MESSAGING' },
                PLATFORM,
              )
            ).contact;
          const recorded = await recordInbound(
            tx,
            organizationId,
            {
              contact,
              ...content,
              chatMessageId: str(message.id)?.slice(0, 256) ?? null,
              at: timeOf(message.timestamp, now),
            },
            PLATFORM,
          );
          if (recorded) counts.received += 1;
          else counts.ignored += 1;
        }
        for (const status of Array.isArray(value.statuses) ? value.statuses : []) {
          const id = str(status?.id);
          const next = RECEIPTS[str(status?.status) ?? ''];
          const applied =
            id !== null &&
            next !== undefined &&
            (await applyStatus(tx, organizationId, id, next, failureOf(status), PLATFORM));
          if (applied) counts.statuses += 1;
          else counts.ignored += 1;
        }
      }
    }
  });
  return counts;
}
