/** Phone numbers and contacts, made over HTTP the ways the service's callers make them. */
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { contacts } from '../../../src/db/schema.ts';
import { admin, api, expectStatus } from '../http.ts';
import { testDatabase } from '../test-app.ts';
import { busyPublishableKey } from './organizations.ts';

let phoneSequence = 100_000;

/** A valid Spanish mobile number (E.164, +34 60...) not handed out before in this process. */
export function nextPhone(): string {
  phoneSequence += 1;
  return `+346${String(phoneSequence * 7)
    .padStart(8, '0')
    .slice(-8)}`;
}

// Seven digits after +34 61: a random start per process, then one up per contact (never a repeat in
// a run, and never one of nextPhone's +34 60 numbers).
let portalPhoneSequence = Math.floor(Math.random() * 9_000_000);

function portalPhone(): string {
  portalPhoneSequence += 1;
  return `+3461${String(portalPhoneSequence % 10_000_000).padStart(7, '0')}`;
}

/**
 * How a contact comes in: `finder`, a visitor's search (POST /v1/finder); `lead`, the portal's contact
 * form (POST /v1/leads); `api`, the back office's POST /v1/contacts; `admin`, the operator's
 * POST /admin/v1/organizations/:id/contacts.
 */
export type ContactRoute = 'finder' | 'lead' | 'api' | 'admin';

export interface ContactOptions {
  /** `finder` unless given. */
  via?: ContactRoute;
  /**
   * The key the request is sent with: a publishable key for `finder` and `lead` (by default one with
   * lifted limits, made once per organization); a secret key for `api` (by default the tenant's).
   */
  key?: string;
  /**
   * The request's fields over the defaults: firstName Lucía; for `finder` and `lead` a fresh phone
   * (+34 61 and seven digits; give another in E.164), and city Málaga for `finder`.
   */
  body?: Record<string, unknown>;
  /** Written straight into the row after a `finder` or `lead` contact (no portal form sets one). */
  externalId?: string;
}

/** The contact: the API's answer for `api` and `admin`; its id and the phone sent for `finder` and `lead`. */
export type CreatedContact = Record<string, unknown> & { id: string; phone: string | null };

const portalKeys = new Map<string, Promise<string>>();

function portalKeyOf(app: FastifyInstance, organizationId: string): Promise<string> {
  let key = portalKeys.get(organizationId);
  if (!key) {
    key = busyPublishableKey(app, organizationId);
    portalKeys.set(organizationId, key);
  }
  return key;
}

/** A tenant, as far as a contact needs one: its organization, and the secret key `api` sends with. */
export interface ContactOwner {
  org: { id: string };
  secret: { key: string };
}

/**
 * A contact of `owner` (an organization id, with a `key` the organization that key acts on; or a
 * tenant, whose secret key `api` uses unless `key` is given), created over HTTP as `options.via`
 * says; 201 asserted.
 */
export async function createContact(
  app: FastifyInstance,
  owner: string | ContactOwner,
  options: ContactOptions = {},
): Promise<CreatedContact> {
  const organizationId = typeof owner === 'string' ? owner : owner.org.id;
  const via = options.via ?? 'finder';
  if (via === 'api' || via === 'admin') {
    if (options.externalId !== undefined)
      throw new Error(`createContact: an ${via} contact's externalId goes in its body`);
    const body = { firstName: 'Lucía', ...options.body };
    if (via === 'admin') {
      const path = `/admin/v1/organizations/${organizationId}/contacts`;
      return expectStatus(await admin(app, 'POST', path, body), 201).data;
    }
    const key = options.key ?? (typeof owner === 'string' ? undefined : owner.secret.key);
    if (key === undefined) throw new Error('createContact: an api contact needs a tenant or a key');
    return expectStatus(await api(app, 'POST', '/v1/contacts', { key, body }), 201).data;
  }
  const key = options.key ?? (await portalKeyOf(app, organizationId));
  const body = {
    firstName: 'Lucía',
    phone: portalPhone(),
    ...(via === 'finder' ? { city: 'Málaga' } : {}),
    ...options.body,
  };
  const phone = body.phone as string;
  const path = via === 'finder' ? '/v1/finder' : '/v1/leads';
  const answer = expectStatus(await api(app, 'POST', path, { key, body }), 201);
  // A lead's answer is a receipt ({ success: true }): its contact is found by the phone sent.
  const sent: string | undefined = via === 'finder' ? answer.data.contact.id : undefined;
  if (sent !== undefined && options.externalId === undefined) return { id: sent, phone };
  const db = await testDatabase();
  const id = await db.tenantTx(organizationId, async (tx) => {
    const where = and(
      eq(contacts.organizationId, organizationId),
      sent === undefined ? eq(contacts.phone, phone) : eq(contacts.id, sent),
    );
    if (options.externalId !== undefined)
      await tx.update(contacts).set({ externalId: options.externalId }).where(where);
    const [row] = await tx.select({ id: contacts.id }).from(contacts).where(where);
    if (!row) throw new Error(`no contact with phone ${phone}`);
    return row.id;
  });
  return { id, phone };
}
