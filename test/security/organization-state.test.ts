/**
 * Deactivating an organization stops every one of its credentials on every process within the state
 * caches' lifetime (issue 36: at most 5 s; decision 0241): two apps on one database stand for two API
 * processes, the change made through one, its effect watched on the other.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.ts';
import { createAgent, createApiKey, createOrganization } from '../helpers/factories.ts';
import { admin, expectStatus } from '../helpers/http.ts';
import { buildTestApp, testDatabase } from '../helpers/test-app.ts';

const HOST = 'localhost:80';

let here: FastifyInstance;
let there: FastifyInstance;

beforeAll(async () => {
  const db = await testDatabase();
  here = await buildTestApp({}, { db });
  there = await buildTestApp({}, { db });
});
afterAll(async () => {
  await here?.close();
  await there?.close();
});

/** Asks until `refused` holds for every answer, or `limitMs` passes; returns how long it took. */
async function until(
  probes: (() => Promise<LightMyRequestResponse>)[],
  refused: (response: LightMyRequestResponse) => boolean,
  limitMs: number,
): Promise<{ ms: number; last: LightMyRequestResponse[] }> {
  const started = Date.now();
  for (;;) {
    const last = await Promise.all(probes.map((probe) => probe()));
    if (last.every(refused) || Date.now() - started > limitMs) return { ms: Date.now() - started, last };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('an organization deactivated on one process', () => {
  it('stops its API key, console session, feed URL and calendar URL on another within 5 s, and back', async () => {
    const org = await createOrganization(here);
    const secret = (await createApiKey(here, org.id, { type: 'secret', scopes: [...SCOPES], accessLevel: 3 }))
      .key;
    const agent = await createAgent(here, org.id, {});
    const call = (method: 'POST', url: string) =>
      here.inject({ method, url, headers: { 'x-api-key': secret }, payload: {} });
    const feed = expectStatus(await call('POST', '/v1/feeds/token'), 201).data.token as string;
    const calendar = expectStatus(await call('POST', `/v1/calendar/feeds/${agent.id}`), 201).data
      .token as string;
    const link = expectStatus(
      await admin(here, 'POST', `/admin/v1/organizations/${org.id}/console-links`),
      201,
    ).data;
    const opened = await here.inject({
      method: 'GET',
      url: new URL(link.url).pathname + new URL(link.url).search,
      headers: { host: HOST },
    });
    const cookie = String(opened.headers['set-cookie']).split(';')[0] as string;

    const probes = [
      () => there.inject({ method: 'GET', url: '/v1/me', headers: { 'x-api-key': secret } }),
      () => there.inject({ method: 'GET', url: '/console/api/session', headers: { host: HOST, cookie } }),
      () => there.inject({ method: 'GET', url: `/feeds/${feed}/listings.json` }),
      () => there.inject({ method: 'GET', url: `/calendars/${calendar}.ics` }),
    ];
    // Warm the other process's caches: each credential works there first.
    for (const probe of probes) expect((await probe()).statusCode).toBe(200);

    expectStatus(await admin(here, 'PATCH', `/admin/v1/organizations/${org.id}`, { isActive: false }), 200);
    const stopped = await until(probes, (response) => response.statusCode === 403, 6_000);
    expect(
      stopped.last.map((response) => response.statusCode),
      stopped.last.map((response) => response.body).join('\n'),
    ).toEqual([403, 403, 403, 403]);
    expect(stopped.ms).toBeLessThan(5_000);

    expectStatus(await admin(here, 'PATCH', `/admin/v1/organizations/${org.id}`, { isActive: true }), 200);
    const back = await until(probes, (response) => response.statusCode === 200, 6_000);
    expect(back.last.map((response) => response.statusCode)).toEqual([200, 200, 200, 200]);
  }, 30_000);
});
