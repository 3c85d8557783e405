/**
 * The portal cache across real processes (decision 0225): two `npm start` servers on one PostgreSQL,
 * each with its own in-process cache. Every write acknowledged by one is seen by the very next read
 * through the other, with both caches warm. PGlite serves one process only: PostgreSQL leg.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../../helpers/server-process.ts';
import { ADMIN_TOKEN, TEST_DATABASE_URL } from '../../helpers/test-app.ts';

const children: ChildProcess[] = [];

/** `src/server.ts` on the file's database, without the worker; resolves with its base URL. */
async function startServer(databaseUrl: string): Promise<string> {
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    DATABASE_PREPARED_STATEMENTS: process.env.TEST_DATABASE_PREPARED_STATEMENTS ?? 'true',
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    RUN_WORKER: 'false',
    SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
  };
  const { output } = await startServerProcess(env, /listening on http:\/\/\S+\s/, children);
  return /listening on (http:\/\/\S+)/.exec(output())?.[1] as string;
}

async function call(
  base: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = options.key
    ? { 'x-api-key': options.key }
    : { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  return JSON.parse(text) as { data: Record<string, unknown> & { price?: number } };
}

describe.skipIf(TEST_DATABASE_URL === undefined)('the portal cache across two processes (PostgreSQL)', () => {
  let first: string;
  let second: string;

  beforeAll(async () => {
    const databaseUrl = process.env.TEST_DATABASE_URL as string;
    [first, second] = await Promise.all([startServer(databaseUrl), startServer(databaseUrl)]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null) return resolve(null);
            child.once('exit', resolve);
            child.kill('SIGTERM');
          }),
      ),
    );
  });

  it('reads every acknowledged price change through the other process at once, caches warm', async () => {
    const org = (
      await call(first, 'POST', '/admin/v1/organizations', {
        body: { name: 'Two Process Realty', plan: 'BUSINESS' },
      })
    ).data.id as string;
    const key = (
      await call(first, 'POST', `/admin/v1/organizations/${org}/api-keys`, {
        body: { type: 'publishable', rateLimitPerMinute: 10_000 },
      })
    ).data.key as string;
    const property = (
      await call(first, 'POST', `/admin/v1/organizations/${org}/properties`, {
        body: {
          code: 'TWO-1',
          title: 'Ático',
          transactionType: 'SALE',
          type: 'PENTHOUSE',
          price: 100_000,
          city: 'Valencia',
        },
      })
    ).data.id as string;
    const url = `/v1/properties/${property}`;
    for (let round = 1; round <= 20; round++) {
      // Warm both caches on the current version, write through one, read through the other.
      const [writer, reader] = round % 2 === 0 ? [first, second] : [second, first];
      await call(reader, 'GET', url, { key });
      await call(writer, 'GET', url, { key });
      const price = 100_000 + round;
      await call(writer, 'PATCH', `/admin/v1/organizations/${org}/properties/${property}`, {
        body: { price },
      });
      expect((await call(reader, 'GET', url, { key })).data.price, `round ${round}`).toBe(price);
      expect((await call(reader, 'GET', url, { key })).data.price, `round ${round}, again`).toBe(price);
    }
  });
});
