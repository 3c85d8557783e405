/**
 * What an integrator's calls leave in the demo agency (issue 21): portal leads with UTM values and a
 * referrer (one that matched an existing contact), visit requests (one confirmed into an appointment,
 * one declined, one pending), notes, consents, and a duplicate merged away. Made through the v1
 * services with the demo's own keys, verified as any request's are, so every event exists with actor
 * API. Dates are relative to the seed.
 */
import pino from 'pino';
import type { Database } from '../../db/database.ts';
import { KeyVerifier } from '../../platform/auth/key-verifier.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { getAvailability } from '../booking/index.ts';
import { setContactConsent } from '../consents/index.ts';
import {
  captureLead,
  confirmVisitRequest,
  declineVisitRequest,
  findVisitRequest,
  requestVisit,
} from '../leads/index.ts';
import { addNote } from '../notes/index.ts';
import { mergeContacts } from '../privacy/index.ts';
import { searchPortalProperties } from '../properties/index.ts';
import { demoContactPhone } from './demo-crm.ts';

const DAY = 86_400_000;

async function callerOf(verifier: KeyVerifier, key: string): Promise<Caller> {
  const lookup = await verifier.lookup(key);
  if (lookup.outcome !== 'found') throw new Error('the demo key does not verify');
  return lookup.caller;
}

/** Needs the demo CRM (its contacts, in order) and portal (published listings, Javier's booking page). */
export async function seedDemoIntegrations(
  db: Database,
  keys: { publishable: string; secret: string },
  demo: { contactIds: readonly string[]; javierId: string },
  now = Date.now(),
): Promise<void> {
  const verifier = new KeyVerifier(db, pino({ level: 'silent' }), 0);
  try {
    const portal = await callerOf(verifier, keys.publishable);
    const server = await callerOf(verifier, keys.secret);
    const listings = (await searchPortalProperties(db, portal, {})).data;
    const listing = (i: number) => {
      const property = listings[i % listings.length];
      if (!property) throw new Error('the demo integrations need published listings');
      return property.id;
    };

    // Portal leads: a new person who consents to messages and email, and a known contact again.
    await captureLead(db, portal, {
      firstName: 'Irene',
      lastName: 'Castro',
      phone: '+34 655 100 200',
      email: 'irene.castro@example.com',
      propertyId: listing(0),
      message: '¿Sigue disponible? Me gustaría verlo esta semana.',
      utmSource: 'idealista',
      utmMedium: 'portal',
      utmCampaign: 'otono',
      referrer: 'https://demo-realty.example/propiedades',
      consents: { messaging: true, email: true },
    });
    await captureLead(db, portal, {
      firstName: 'Alejandro',
      phone: demoContactPhone(1),
      propertyId: listing(1),
      message: 'Vuelvo a escribir: ¿podemos hablar del precio?',
      utmSource: 'newsletter',
    });

    // Visit requests: one confirmed into an appointment with Javier, one declined, one left pending.
    const preferredDate = new Date(now + 9 * DAY).toISOString().slice(0, 10);
    const visit = async (firstName: string, phone: string, i: number) =>
      (
        await requestVisit(db, portal, {
          firstName,
          phone,
          propertyId: listing(i),
          preferredDate,
          preferredTime: 'afternoon',
        })
      ).visitRequestId;
    const toConfirm = await visit('Tomás', '+34 655 100 201', 2);
    const toDecline = await visit('Rocío', '+34 655 100 202', 3);
    await visit('Hugo', '+34 655 100 203', 0);
    const slot = await firstFreeSlot(db, portal, now + 8 * DAY);
    if (slot)
      await confirmVisitRequest(db, server, toConfirm, { agentId: demo.javierId, ...slot, type: 'SHOWING' });
    await declineVisitRequest(db, server, toDecline, { reason: 'The owner accepted an offer yesterday.' });

    // Notes, consents, and a duplicate (the same person typed twice) merged into the first.
    const [first, second, third] = demo.contactIds;
    if (!first || !second || !third) throw new Error('the demo integrations need three contacts');
    await addNote(db, server, first, { body: 'Prefers visits after 18:00; budget up to 420,000 EUR.' });
    await addNote(db, server, second, { body: 'Asked for the energy certificate of the Málaga flat.' });
    await setContactConsent(db, server, first, 'EMAIL', {
      status: 'GRANTED',
      source: 'signed form at the office',
    });
    await setContactConsent(db, server, second, 'PHONE', {
      status: 'REVOKED',
      source: 'asked not to be called',
    });
    await mergeContacts(db, server, third, await duplicateOf(db, portal, listing(2)));
  } finally {
    await verifier.close();
  }
}

/** A second contact for the same person, as a portal form with another phone makes one. */
async function duplicateOf(db: Database, portal: Caller, propertyId: string): Promise<string> {
  const receipt = await requestVisit(db, portal, {
    firstName: 'Sergio',
    lastName: 'Pérez',
    phone: '+34 655 100 204',
    propertyId,
    preferredTime: 'morning',
  });
  return (await findVisitRequest(db, portal, receipt.visitRequestId)).contact.id;
}

/** Javier's first free slot on or after `from` (his page's own availability), or none. */
async function firstFreeSlot(
  db: Database,
  portal: Caller,
  from: number,
): Promise<{ date: string; startTime: string } | null> {
  for (const at of [from, from + 31 * DAY]) {
    const day = new Date(at);
    const month = await getAvailability(db, portal, 'javier-morales', {
      year: day.getUTCFullYear(),
      month: day.getUTCMonth(),
    });
    const date = month.availableDates.find((d) => d.date >= day.toISOString().slice(0, 10));
    const startTime = date?.slots[1] ?? date?.slots[0];
    if (date && startTime) return { date: date.date, startTime };
  }
  return null;
}
