/**
 * Shared set-up of the messaging tests: an agency with a number, templates and a contact, raw reads,
 * and a fake messaging platform for the `http` provider.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { queryRows } from '../../../src/db/database.ts';
import type { Contact } from '../../../src/features/contacts/contacts.schema.ts';
import type { Message } from '../../../src/features/conversations/conversations.schema.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createAgent, createApiKey, createOrganization } from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { testDatabase } from '../../helpers/test-app.ts';

export const FAST = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };

let phoneSequence = 100_000;
/** A fresh valid Spanish mobile number. */
export function nextPhone(): string {
  phoneSequence += 1;
  return `+346${String(phoneSequence * 7)
    .padStart(8, '0')
    .slice(-8)}`;
}

export interface MessagingAgency {
  orgId: string;
  testOrgId: string;
  secret: string;
  publishable: string;
  readOnly: string;
  owner: { id: string; firstName: string; lastName: string };
  numberId: string;
  providerNumberId: string;
  approvedId: string;
  pendingId: string;
  contactId: string;
  contactPhone: string;
}

/**
 * An organization (ES) with a fast secret key, an agent who owns a contact with a phone, an active
 * messaging number, an APPROVED template with {{name}} and {{street}}, and a PENDING one.
 */
export async function createMessagingAgency(
  app: FastifyInstance,
  options: { number?: boolean } = {},
): Promise<MessagingAgency> {
  const org = await createOrganization(app, { plan: 'BUSINESS', writeLimitPerMinute: 100_000 });
  expectStatus(await admin(app, 'PATCH', `/admin/v1/organizations/${org.id}`, { defaultCountry: 'ES' }), 200);
  const secret = (
    await createApiKey(app, org.id, { type: 'secret', scopes: [...SCOPES], accessLevel: 3, ...FAST })
  ).key;
  const publishable = (await createApiKey(app, org.id, { type: 'publishable' })).key;
  const readOnly = (
    await createApiKey(app, org.id, { type: 'read_only_secret', rateLimitPerMinute: 100_000 })
  ).key;
  const owner = await createAgent(app, org.id, { firstName: 'Marta', lastName: 'Ruiz' });
  let numberId = '';
  let providerNumberId = '';
  if (options.number !== false) {
    const number = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${org.id}/messaging-numbers`, {
        phone: nextPhone(),
        providerNumberId: `pn${Date.now()}`,
      }),
      201,
    ).data;
    numberId = number.id;
    providerNumberId = number.providerNumberId;
  }
  const template = (body: Record<string, unknown>) =>
    admin(app, 'POST', `/admin/v1/organizations/${org.id}/message-templates`, body);
  const approvedId = expectStatus(
    await template({
      name: 'visit_followup',
      language: 'es',
      category: 'MARKETING',
      body: 'Hola {{name}}, el piso de {{ street }} sigue disponible. ¿Quedamos, {{name}}?',
      status: 'APPROVED',
    }),
    201,
  ).data.id;
  const pendingId = expectStatus(
    await template({ name: 'price_drop', category: 'MARKETING', body: 'New price: {{price}}' }),
    201,
  ).data.id;
  const contactPhone = nextPhone();
  const contactId = expectStatus(
    await admin(app, 'POST', `/admin/v1/organizations/${org.id}/contacts`, {
      firstName: 'Lucía',
      lastName: 'Fernández',
      phone: contactPhone,
      ownerId: owner.id,
    }),
    201,
  ).data.id;
  return {
    orgId: org.id,
    testOrgId: org.testOrganizationId as string,
    secret,
    publishable,
    readOnly,
    owner: { id: owner.id, firstName: 'Marta', lastName: owner.lastName as string },
    numberId,
    providerNumberId,
    approvedId,
    pendingId,
    contactId,
    contactPhone,
  };
}

export function send(
  app: FastifyInstance,
  key: string,
  contactId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return api(app, 'POST', `/v1/conversations/${contactId}/messages`, { key, body, headers });
}

export function inbound(app: FastifyInstance, orgId: string, contactId: string, body: string) {
  return admin(app, 'POST', `/admin/v1/organizations/${orgId}/contacts/${contactId}/inbound-messages`, {
    body,
  });
}

/** The members of the messaging events' data the tests read (each event has some of them). */
export interface EventData {
  message: Message;
  contact: Contact;
  changes: string[];
  previousStatus: string;
  windowExpiresAt: string;
  /** message.sent: the key the platform was given with the send, or null. */
  dedupeKey: string | null;
}

/** The organization's events of a type, oldest first. */
export async function eventsOf(organizationId: string, type: string) {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<{ data: EventData; actor: Record<string, unknown> }>(
      tx,
      sql`SELECT data, actor FROM events WHERE organization_id = ${organizationId} AND type = ${type} ORDER BY created_at, id`,
    ),
  );
}

/** A message row as stored. */
export async function storedMessages(organizationId: string, contactId: string) {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<{ id: string; status: string; direction: string; failure_reason: string | null }>(
      tx,
      sql`SELECT id, status, direction, failure_reason FROM messages WHERE organization_id = ${organizationId} AND contact_id = ${contactId} ORDER BY created_at, id`,
    ),
  );
}

/** A request the fake messaging platform received. */
export interface PlatformRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** What the platform does with the next requests: answer with a status and body, or never answer. */
export type PlatformBehaviour = { status: number; body: unknown } | 'hang';

/** A real local HTTP server playing the messaging platform, the other end of the `http` provider. */
export interface FakePlatform {
  /** MESSAGING_API_URL for an app built with MESSAGING_PROVIDER=http. */
  apiUrl: string;
  /** The requests received since the last reset, oldest first. */
  received: PlatformRequest[];
  /** What it does with the next requests; 200 with an empty object after a reset. */
  behaviour: PlatformBehaviour;
  /** Forgets the requests received and answers 200 again. */
  reset(): void;
  /** Drops the requests left hanging and stops the server. */
  close(): Promise<void>;
}

export async function startFakePlatform(): Promise<FakePlatform> {
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      platform.received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
      });
      const behaviour = platform.behaviour;
      if (behaviour === 'hang') {
        hanging.push(response);
        return;
      }
      response.writeHead(behaviour.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(behaviour.body));
    });
  });
  const platform: FakePlatform = {
    apiUrl: '',
    received: [],
    behaviour: { status: 200, body: {} },
    reset() {
      platform.received = [];
      platform.behaviour = { status: 200, body: {} };
    },
    async close() {
      for (const response of hanging) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  platform.apiUrl = `http://127.0.0.1:${port}/v21.0`;
  return platform;
}

/** The platform's answer accepting a message: `id` becomes the message's chatMessageId. */
export const accepted = (id: string) => ({
  messaging_product: 'whatsapp',
  contacts: [{ input: '34600000000', wa_id: '34600000000' }],
  messages: [{ id }],
});
