/**
 * A send whose first attempt times out on the client while the server is still waiting for a slow
 * messaging platform. The retries (same Idempotency-Key) are held by the server until the first
 * answers (issue 37: a duplicate waits, bounded, instead of a 409), so one of them receives the
 * original answer; the platform is called once. (Past the wait a retry gets the in-progress 409 with
 * Retry-After: 1, which the client also retries: test/platform/idempotency.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTenant, MESSAGING_AGENCY, type MessagingTenant } from '../helpers/factories.ts';
import { expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { inbound } from '../features/conversations/support.ts';
import { clientFor, listen } from './support.ts';

const PLATFORM_DELAY_MS = 1_200;
let platform: Server;
let platformCalls = 0;
let app: FastifyInstance;
let baseUrl: string;
let agency: MessagingTenant;

beforeAll(async () => {
  platform = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      platformCalls += 1;
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.${platformCalls}` }] }),
        );
      }, PLATFORM_DELAY_MS);
    });
  });
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  app = await buildTestApp({
    MESSAGING_PROVIDER: 'http',
    MESSAGING_API_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}/v21.0`,
    MESSAGING_API_TOKEN: 'platform-token',
    MESSAGING_TIMEOUT_MS: '5000',
  });
  baseUrl = await listen(app);
  agency = await createTenant(app, MESSAGING_AGENCY);
  expectStatus(await inbound(app, agency.org.id, agency.messaging.contactId, 'Hola'), 201);
});
afterAll(async () => {
  await app.close();
  platform.closeAllConnections();
  await new Promise<void>((resolve) => platform.close(() => resolve()));
});

it('a timed-out send is retried to the original answer, held by the server until the first answers, sent once', async () => {
  const outcomes: (number | string)[] = [];
  const client = clientFor(baseUrl, agency.secret.key, {
    timeoutMs: 400,
    maxRetries: 5,
    fetch: async (input, init) => {
      try {
        const response = await fetch(input, init);
        outcomes.push(response.status);
        return response;
      } catch (error) {
        outcomes.push('timeout');
        throw error;
      }
    },
  });
  const message = await client.conversations.messages.send(agency.messaging.contactId, {
    body: 'Hola, ¿le viene bien?',
  });
  expect(message.data).toMatchObject({ body: 'Hola, ¿le viene bien?', direction: 'OUTBOUND' });
  expect(message.lastResponse.idempotentReplayed).toBe(true);
  expect(outcomes[0]).toBe('timeout');
  expect(outcomes.at(-1)).toBe(201);
  expect(outcomes.filter((outcome) => outcome !== 409 && outcome !== 'timeout')).toEqual([201]);
  expect(platformCalls).toBe(1);
});
