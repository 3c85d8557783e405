/**
 * A URL credential and a console session count their own requests like a key (decision 0241): the
 * rate-limit headers on every answer, and a 429 with Retry-After past the limit (60 a minute for an
 * agent's calendar URL), which another credential of the organization does not share.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.ts';
import { createAgent, createApiKey, createOrganization } from '../helpers/factories.ts';
import { expectError, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('a calendar URL', () => {
  it('carries the rate-limit headers, and answers 429 with Retry-After past 60 requests a minute', async () => {
    const org = await createOrganization(app);
    const key = (await createApiKey(app, org.id, { type: 'secret', scopes: [...SCOPES], accessLevel: 3 }))
      .key;
    const token = async () => {
      const agent = await createAgent(app, org.id, {});
      const made = await app.inject({
        method: 'POST',
        url: `/v1/calendar/feeds/${agent.id}`,
        headers: { 'x-api-key': key },
        payload: {},
      });
      return expectStatus(made, 201).data.token as string;
    };
    const [first, second] = [await token(), await token()];
    const poll = (t: string) => app.inject({ method: 'GET', url: `/calendars/${t}.ics` });

    const answer = await poll(first);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['x-ratelimit-limit']).toBe('60');
    expect(answer.headers['x-ratelimit-remaining']).toBe('59');
    for (let i = 1; i < 60; i++) expect((await poll(first)).statusCode).toBe(200);
    const refused = await poll(first);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.json().error.message).toContain('this calendar URL');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another agent's URL of the same organization has its own count.
    expect((await poll(second)).statusCode).toBe(200);
  });
});
