/**
 * Kyero URL photos judged by content type (issue 40 item 2, decision 0266): the photos.probe job asks a
 * real local HTTP server what a photo's extensionless address answers, records it, and the Kyero feed
 * then gives a JPEG one through its alias (302 to the original), valid against Kyero v3.4; an HTML one
 * stays out, a HEAD-refusing server is asked with GET, a private address is refused by the guard.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { properties, type PropertyPhoto } from '../../../src/db/schema.ts';
import { runPhotoProbes } from '../../../src/features/properties/index.ts';
import { workerJobs } from '../../../src/jobs.ts';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { expectValidKyero } from '../../helpers/kyero.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { fakeDns } from '../webhooks/support.ts';

let app: FastifyInstance;
let db: Database;
let server: Server;
let base: string;
let agency: SpanishAgency;
let other: SpanishAgency;
const methods: string[] = [];
let sequence = 0;

type Row = Record<string, unknown>;

beforeAll(async () => {
  server = createServer((request, response) => {
    methods.push(`${request.method} ${request.url}`);
    if (request.url === '/photo/jpeg') response.writeHead(200, { 'content-type': 'image/jpeg' });
    else if (request.url === '/photo/html')
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    else if (request.url === '/photo/no-head') {
      if (request.method === 'HEAD') response.writeHead(405);
      else response.writeHead(206, { 'content-type': 'image/png', 'content-range': 'bytes 0-0/10' });
    } else response.writeHead(404);
    response.end(request.method === 'HEAD' ? undefined : 'x');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await buildTestApp();
  db = await testDatabase();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
}, 60_000);

afterAll(async () => {
  await app.close();
  await new Promise((resolve) => server.close(resolve));
});

async function create(owner: SpanishAgency, photos: Row[], overrides: Row = {}): Promise<Row> {
  sequence += 1;
  const response = await api(app, 'POST', '/v1/listings', {
    key: owner.secret.key,
    body: {
      code: `PROBE-${sequence}`,
      title: 'Casa',
      transactionType: 'SALE',
      type: 'APARTMENT',
      price: 250000,
      city: 'Málaga',
      zipCode: '29017',
      photos,
      ...overrides,
    },
  });
  return expectStatus(response, 201).data as Row;
}

async function feedToken(owner: SpanishAgency): Promise<string> {
  return (expectStatus(await api(app, 'POST', '/v1/feeds/token', { key: owner.secret.key }), 201).data as Row)
    .token as string;
}

/** Runs the worker's photos.probe job as the worker does (its defaults, private addresses admitted here). */
async function runProbeJob() {
  const job = workerJobs(db, { webhookAllowPrivateUrls: true }).find(
    (candidate) => candidate.name === 'photos.probe',
  );
  await job?.run();
}

const get = (url: string) => app.inject({ method: 'GET', url });

/** A listing's photos as stored (with their probe fields, which no answer shows). */
async function storedPhotos(owner: SpanishAgency, listingId: string): Promise<PropertyPhoto[]> {
  const rows = await db.tenantTx(owner.org.id, (tx) =>
    tx
      .select({ photos: properties.photos })
      .from(properties)
      .where(and(eq(properties.organizationId, owner.org.id), eq(properties.id, listingId))),
  );
  return rows[0]?.photos ?? [];
}

describe('photos given by URL, judged by content type', () => {
  let token: string;
  let listing: Row;
  let photoIds: string[];

  beforeAll(async () => {
    listing = await create(agency, [
      { url: `${base}/photo/jpeg`, caption: 'JPEG without ending' },
      { url: `${base}/photo/html`, caption: 'A page' },
      { url: `${base}/photo/no-head`, caption: 'PNG, HEAD refused' },
    ]);
    photoIds = (listing.photos as Row[]).map((photo) => photo.id as string);
    token = await feedToken(agency);
    etagBefore = (await get(`/feeds/${token}/kyero.xml`)).headers.etag as string;
    await runProbeJob();
  });

  let etagBefore: string;

  it("moves the feeds' ETag: the recorded types change what the Kyero feed shows", async () => {
    const after = await get(`/feeds/${token}/kyero.xml`);
    expect(after.headers.etag).not.toBe(etagBefore);
  });

  it('records each answer on its photo: HEAD, then GET with a Range when HEAD is refused', async () => {
    const stored = await storedPhotos(agency, listing.id as string);
    expect(stored.map((photo) => photo.contentType)).toEqual(['image/jpeg', null, 'image/png']);
    expect(stored.every((photo) => typeof photo.probedAt === 'string')).toBe(true);
    expect(methods).toContain('HEAD /photo/no-head');
    expect(methods).toContain('GET /photo/no-head');
    // Done: another run asks nothing again.
    const before = methods.length;
    await runProbeJob();
    expect(methods.length).toBe(before);
  });

  it('the Kyero feed gives the JPEG and PNG by their aliases, valid against Kyero v3.4; the HTML stays out', async () => {
    const response = await get(`/feeds/${token}/kyero.xml`);
    expect(response.statusCode, response.body).toBe(200);
    const alias = `/feeds/${token}/photos/${listing.id as string}/${photoIds[0]}.jpg`;
    expect(response.body).toContain(`${alias}</url>`);
    expect(response.body).toContain(`/photos/${listing.id as string}/${photoIds[2]}.png</url>`);
    expect(response.body).not.toContain(photoIds[1]);
    expect(response.body).not.toContain('/photo/html');
    await expectValidKyero(response.body);
  });

  it('the alias answers 302 to the original address; a wrong ending, photo or listing is 404', async () => {
    const alias = `/feeds/${token}/photos/${listing.id as string}/${photoIds[0]}.jpg`;
    const response = await get(alias);
    expect(response.statusCode, response.body).toBe(302);
    expect(response.headers.location).toBe(`${base}/photo/jpeg`);
    expect((await get(alias.replace('.jpg', '.png'))).statusCode).toBe(404);
    expect((await get(`/feeds/${token}/photos/${listing.id as string}/${photoIds[1]}.jpg`)).statusCode).toBe(
      404,
    );
    expect((await get(alias.replace(listing.id as string, 'prop_0000000000000000000000'))).statusCode).toBe(
      404,
    );
  });

  it('the JSON feed and the portal still show the original address', async () => {
    const json = await get(`/feeds/${token}/listings.json`);
    expect(json.body).toContain(`${base}/photo/jpeg`);
    expect(json.body).not.toContain(`${photoIds[0]}.jpg`);
    const portal = await api(app, 'GET', `/v1/properties/${listing.id as string}`, {
      key: agency.publishable.key,
    });
    const photos = (expectStatus(portal, 200).data as Row).photos as Row[];
    expect(photos.map((photo) => photo.url)).toEqual([
      `${base}/photo/jpeg`,
      `${base}/photo/html`,
      `${base}/photo/no-head`,
    ]);
  });

  it('an unpublished listing’s alias is 404', async () => {
    const alias = `/feeds/${token}/photos/${listing.id as string}/${photoIds[0]}.jpg`;
    expectStatus(
      await api(app, 'PATCH', `/v1/listings/${listing.id as string}`, {
        key: agency.secret.key,
        body: { publishedOnPortal: false },
      }),
      200,
    );
    expect((await get(alias)).statusCode).toBe(404);
    expectStatus(
      await api(app, 'PATCH', `/v1/listings/${listing.id as string}`, {
        key: agency.secret.key,
        body: { publishedOnPortal: true },
      }),
      200,
    );
    expect((await get(alias)).statusCode).toBe(302);
  });

  it('another organization’s feed token cannot open it', async () => {
    const otherToken = await feedToken(other);
    const response = await get(`/feeds/${otherToken}/photos/${listing.id as string}/${photoIds[0]}.jpg`);
    expect(response.statusCode, response.body).toBe(404);
  });

  it('a photo whose URL changed is probed again; one kept keeps its type', async () => {
    const before = methods.length;
    const response = await api(app, 'PATCH', `/v1/listings/${listing.id as string}`, {
      key: agency.secret.key,
      body: {
        photos: [
          { url: `${base}/photo/jpeg`, caption: 'kept' },
          { url: `${base}/photo/no-head?v=2`, caption: 'changed' },
        ],
      },
    });
    expectStatus(response, 200);
    await runProbeJob();
    expect(methods.slice(before)).toEqual(['HEAD /photo/no-head?v=2']);
  });
});

describe('the guard', () => {
  it('refuses a name resolving to a private address: recorded as null, never asked', async () => {
    const listing = await create(agency, [{ url: 'http://photos.internal.test/img', caption: 'private' }]);
    const before = methods.length;
    await runPhotoProbes(db, {
      retryDelaysMs: [0],
      allowPrivate: false,
      lookup: fakeDns({ 'photos.internal.test': ['10.0.0.7'] }),
    });
    expect(methods.length).toBe(before);
    expect((await storedPhotos(agency, listing.id as string))[0]?.contentType).toBeNull();
    const token = await feedToken(agency);
    const feed = await get(`/feeds/${token}/kyero.xml`);
    expect(feed.body).not.toContain(((listing.photos as Row[])[0] as Row).id as string);
  });

  it('retries an unreachable address with backoff, then gives up (null)', async () => {
    const logged: unknown[] = [];
    const log = { warn: (entry: unknown) => logged.push(entry), info: () => {}, error: () => {} };
    const listing = await create(agency, [{ url: 'http://127.0.0.1:1/nothing-here', caption: 'down' }]);
    let now = new Date('2030-01-01T00:00:00Z');
    const settings = { retryDelaysMs: [0, 60_000], allowPrivate: true, log, now: () => now };
    await runPhotoProbes(db, settings);
    expect(logged.length).toBeGreaterThan(0);
    // Not given up yet: still unprobed, and not due before its backoff.
    expect((await storedPhotos(agency, listing.id as string))[0]?.contentType).toBeUndefined();
    expect(await runPhotoProbes(db, settings)).toBe(0);
    now = new Date(now.getTime() + 61_000);
    expect(await runPhotoProbes(db, settings)).toBe(1);
    // Past the last delay: given up, null, and off the queue.
    expect((await storedPhotos(agency, listing.id as string))[0]?.contentType).toBeNull();
    expect(await runPhotoProbes(db, settings)).toBe(0);
  });
});
