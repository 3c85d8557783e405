// A contact's consent per channel (issue 21, docs/consent.md): the history rows, the current state,
// and the one write every path takes (the v1 PUT, the opt-out flag, an inbound STOP, portal forms).
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { Tx } from '../../db/database.ts';
import type { ConsentChannel, ConsentStatus, ContactConsentRow } from '../../db/schema.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { newId } from '../../platform/ids/ids.ts';
import { ContactConsentChanged, ContactUpdated } from './contacts.events.ts';
import * as store from './contacts.consent.store.ts';
import { toContact } from './contacts.service.ts';

export {
  CONSENT_CHANNELS,
  CONSENT_STATUSES,
  type ConsentChannel,
  type ConsentStatus,
} from '../../db/schema.ts';

/** The `source` the service itself writes (a v1 PUT names its own, up to 100 characters). */
export const CONSENT_SOURCES = {
  /** The contact sent an opt-out keyword (STOP...) on the messaging channel. */
  inboundStop: 'INBOUND_STOP',
  /** The contact's `optedOut` field was set through the API or the back office. */
  optOut: 'OPT_OUT',
  leadForm: 'LEAD_FORM',
  finderForm: 'FINDER_FORM',
  /** Two contacts were merged and one of them had opted out (decision 0210). */
  merge: 'MERGE',
  /** The contact used the one-click unsubscribe link of a visitor email (issue 41, decision 0269). */
  emailUnsubscribe: 'EMAIL_UNSUBSCRIBE',
} as const;

/** How many history rows an answer shows, newest first. */
export const CONSENT_HISTORY_LIMIT = 100;

export interface ConsentInput {
  channel: ConsentChannel;
  status: ConsentStatus;
  source: string;
}

/** One consent statement as answers and events show it. */
export interface ConsentState {
  status: ConsentStatus;
  source: string;
  at: string;
}

export interface ConsentHistoryItem extends ConsentState {
  id: string;
  channel: ConsentChannel;
  /** Who recorded it: API (a key), USER (the back office), SYSTEM (an inbound message)... */
  actorKind: string;
}

export interface ContactConsents {
  contactId: string;
  current: Record<ConsentChannel, ConsentState | null>;
  history: ConsentHistoryItem[];
}

/**
 * What a portal form may carry (`consents` of POST /v1/leads and the finder): one boolean per
 * channel, lower-case, `true` = GRANTED, `false` = REVOKED, absent = nothing recorded.
 */
export const FormConsentsSchema = Type.Object(
  {
    messaging: Type.Optional(Type.Boolean({ description: 'Messages (WhatsApp-style channel)' })),
    email: Type.Optional(Type.Boolean()),
    phone: Type.Optional(Type.Boolean({ description: 'Phone calls' })),
  },
  {
    additionalProperties: false,
    description:
      'Consent the person gave (true) or refused (false) on the form, per channel; recorded in the ' +
      "contact's consent history with source LEAD_FORM or FINDER_FORM. Omitted channels record nothing.",
    examples: [{ messaging: true, email: false }],
  },
);
export type FormConsents = Static<typeof FormConsentsSchema>;

function toHistoryItem(row: ContactConsentRow): ConsentHistoryItem {
  return {
    id: row.id,
    channel: row.channel,
    status: row.status,
    source: row.source,
    at: row.createdAt.toISOString(),
    actorKind: row.actorKind,
  };
}

/**
 * Records one consent statement of a contact, inside the caller's transaction: always a history row;
 * `contact.consent_changed` only when the channel's status changes (or is stated for the first time).
 * MESSAGING keeps the contact's `optedOut` in step (REVOKED = opted out), with its own
 * `contact.updated`, so sending (messaging modes) answers BLOCKED from that one flag.
 * The caller has checked that the contact is the organization's.
 */
export async function recordConsent(
  tx: Tx,
  organizationId: string,
  contactId: string,
  input: ConsentInput,
  actor: Actor,
): Promise<ConsentHistoryItem> {
  await store.lockContact(tx, organizationId, contactId);
  const previous = await store.findCurrentConsent(tx, organizationId, contactId, input.channel);
  const row = await store.insertConsent(tx, {
    id: newId('cns'),
    organizationId,
    contactId,
    channel: input.channel,
    status: input.status,
    source: input.source,
    actorKind: actor.kind,
  });
  const item = toHistoryItem(row);
  if (previous?.status !== input.status) {
    const { channel, status, source, at } = item;
    await recordEvent(tx, {
      type: ContactConsentChanged.type,
      data: { consent: { contactId, channel, status, source, at } },
      actor,
    });
  }
  if (input.channel === 'MESSAGING') {
    const changed = await store.setOptedOut(tx, organizationId, contactId, input.status === 'REVOKED');
    if (changed) {
      await recordEvent(tx, {
        type: ContactUpdated.type,
        data: { contact: toContact(changed), changes: ['optedOut'] },
        actor,
      });
    }
  }
  return item;
}

/** The consents a portal form carried, recorded with the form's source (nothing when it carried none). */
export async function recordFormConsents(
  tx: Tx,
  organizationId: string,
  contactId: string,
  consents: FormConsents | undefined,
  source: string,
  actor: Actor,
): Promise<void> {
  if (!consents) return;
  const given: [ConsentChannel, boolean | undefined][] = [
    ['MESSAGING', consents.messaging],
    ['EMAIL', consents.email],
    ['PHONE', consents.phone],
  ];
  for (const [channel, granted] of given) {
    if (granted === undefined) continue;
    const status = granted ? 'GRANTED' : 'REVOKED';
    await recordConsent(tx, organizationId, contactId, { channel, status, source }, actor);
  }
}

/** A contact's current consent per channel (null: never stated) and its newest history rows. */
export async function readContactConsents(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<ContactConsents> {
  const current: ContactConsents['current'] = { MESSAGING: null, EMAIL: null, PHONE: null };
  for (const row of await store.listCurrentConsents(tx, organizationId, contactId)) {
    const { channel, status, source, at } = toHistoryItem(row);
    if (channel in current) current[channel] = { status, source, at };
  }
  const history = await store.listConsents(tx, organizationId, contactId, CONSENT_HISTORY_LIMIT);
  return { contactId, current, history: history.map(toHistoryItem) };
}
