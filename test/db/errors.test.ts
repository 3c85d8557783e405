/**
 * Which database failures are "unavailable" (503 with Retry-After, docs/decisions/0020-database-unavailable.md), with errors raised by the real driver. The fault tests (test/reliability/) check
 * the same mapping end to end while PostgreSQL is stopped, killed and frozen.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/errors.ts';
import { freePort } from '../helpers/private-services.ts';
import { TEST_DATABASE_URL } from '../helpers/test-app.ts';

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('isDatabaseUnavailable', () => {
  it('is true for a refused connection, through the cause chain', async () => {
    const port = await freePort();
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    const refused = await failure(() => client.connect());
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable(new Error('Failed query: select 1', { cause: refused }))).toBe(true);
  });

  it('is false for errors that a retry would not fix', () => {
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });

  it.skipIf(TEST_DATABASE_URL === undefined)(
    'is true for a session terminated by the server (57P01), and for the next query on it',
    async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      client.on('error', () => undefined);
      await client.connect();
      // Only this test's own connection is terminated.
      const terminated = await failure(() => client.query('SELECT pg_terminate_backend(pg_backend_pid())'));
      expect((terminated as { code?: string }).code).toBe('57P01');
      expect(isDatabaseUnavailable(terminated)).toBe(true);
      const next = await failure(() => client.query('SELECT 1'));
      expect(isDatabaseUnavailable(next)).toBe(true);
      await client.end().catch(() => undefined);
    },
  );
});
