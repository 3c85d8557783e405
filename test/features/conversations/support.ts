/**
 * Shared parts of the messaging tests: sending and receiving, raw reads, and a fake messaging
 * platform for the `http` provider (the agency itself: createTenant with MESSAGING_AGENCY).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { queryRows } from '../../../src/db/database.ts';
import type { Contact } from '../../../src/features/contacts/contacts.schema.ts';
import type { Message } from '../../../src/features/conversations/conversations.schema.ts';
import { admin, api } from '../../helpers/http.ts';
import { testDatabase } from '../../helpers/test-app.ts';

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
