/**
 * A feed of 100,000 listings streams within a fixed memory bound (issue 25 item 7): the test reads the
 * Kyero feed over real HTTP chunk by chunk (the JSON feed is written by the same batched generator;
 * measured the same way once: 122 MB with +3.7 MB of live memory), counting listings without keeping
 * the body, and measures the process's live memory (heap and buffers after a full garbage collection) every 16 MB. Were a
 * feed built whole before sending, the live memory would grow with the body (~100 MB here); streamed,
 * it stays within one batch of listings and a few chunks.
 *
 * On PostgreSQL only (the CI's second leg): the streaming code is the same on the embedded database, but
 * 100,000 rows grow PGlite's WebAssembly memory in the test process by ~550 MB and the file by a minute.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, TEST_DATABASE_URL, testDatabase } from '../../helpers/test-app.ts';

const LISTINGS = 100_000;
/** Listings inserted per transaction while seeding. */
const BATCH = 10_000;
/** Live memory a feed may add while it streams, whatever its size. */
const MEMORY_BOUND = 32 * 1024 * 1024;
/**
 * Live memory is read every this many bytes, each reading a full garbage collection: ~5 of them in the
 * 78 MB feed (every 4 MB, 19 of them on the suite's grown heap made this the PostgreSQL leg's longest
 * file, 74 s where it takes 14 s alone). A feed built whole is already in memory at the first reading.
 */
const SAMPLE_EVERY = 16 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function liveBytes(): number {
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

let app: FastifyInstance;
let agency: SpanishAgency;
let base: string;
let urls: { kyero: string; json: string };

const ON_POSTGRES = TEST_DATABASE_URL !== undefined;

beforeAll(async () => {
  if (!ON_POSTGRES) return;
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  const db = await testDatabase();
  // Published listings with a 300-character description and coordinates, in batches: one transaction
  // each, every one well inside the service's statement timeout (one statement of 100,000 rows with the
  // listing triggers outlasted it on a slower CI machine).
  for (let from = 1; from <= LISTINGS; from += BATCH) {
    await db.tenantTx(agency.org.id, (tx) =>
      queryRows(
        tx,
        sql`INSERT INTO properties (id, organization_id, code, title, description, transaction_type, type, price,
              currency, city, latitude, longitude, portal_latitude, portal_longitude, amenities, search_city,
              search_text)
            SELECT 'prop_scale' || lpad(n::text, 17, '0'), ${agency.org.id}, 'S-' || n, 'Flat ' || n,
              repeat('Bright flat near the sea. ', 12), 'SALE', 'APARTMENT', 100000 + n, 'EUR', 'Málaga',
              36.7 + n / 1e7, -4.4 - n / 1e7, 36.7 + n / 1e7, -4.4 - n / 1e7, '{pool}', 'malaga', 'flat ' || n
            FROM generate_series(${from}::int, ${Math.min(from + BATCH - 1, LISTINGS)}::int) AS n`,
      ),
    );
  }
  const response = await api(app, 'POST', '/v1/feeds/token', { key: agency.secret.key });
  urls = (expectStatus(response, 201).data as { urls: { kyero: string; json: string } }).urls;
  base = await app.listen({ port: 0, host: '127.0.0.1' });
}, 300_000);

afterAll(async () => {
  await app?.close();
});

/** Reads a feed over HTTP, keeping only counts: its size, the matches of `marker`, the live-memory peak. */
async function stream(url: string, marker: string) {
  const baseline = liveBytes();
  const response = await fetch(new URL(new URL(url).pathname, base));
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let count = 0;
  let carry = '';
  let nextSample = SAMPLE_EVERY;
  let peak = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    const text = carry + decoder.decode(value, { stream: true });
    count += text.split(marker).length - 1;
    // A marker cut between two chunks is counted once, in the next one.
    carry = text.slice(-(marker.length - 1));
    count -= carry.split(marker).length - 1;
    if (bytes >= nextSample) {
      peak = Math.max(peak, liveBytes() - baseline);
      nextSample += SAMPLE_EVERY;
    }
  }
  return { bytes, count, peak };
}

describe.skipIf(!ON_POSTGRES)(`a feed of ${LISTINGS.toLocaleString('en')} listings`, () => {
  it('streams the Kyero feed within a fixed memory bound', async () => {
    const { bytes, count, peak } = await stream(urls.kyero, '<property>');
    expect(count).toBe(LISTINGS);
    expect(bytes).toBeGreaterThan(2 * MEMORY_BOUND);
    console.log(
      `kyero: ${(bytes / 1048576).toFixed(1)} MB streamed, live memory +${(peak / 1048576).toFixed(1)} MB at most`,
    );
    expect(peak, `live memory grew by ${(peak / 1048576).toFixed(1)} MB`).toBeLessThan(MEMORY_BOUND);
  }, 300_000);
});
