/**
 * The feeds' ETag and the portal's `updatedAt` follow what they show (issue 40 item 3, migration 0034):
 * an edit of internal notes or custom fields changes neither the feeds' validators nor the portal's
 * answers or walk order, while the agency's listing API and RESO still see the change; an edit of
 * anything the portal shows changes both.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let listingId: string;
let urls: { kyero: string; json: string };

const feed = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: new URL(url).pathname, headers });

/** A feed's body without when it was generated (the one part that differs between two answers). */
const withoutStamp = (body: string) =>
  body.replace(/<feed_generated>[^<]*<\/feed_generated>/, '').replace(/"generatedAt":"[^"]*"/, '');

const patch = async (body: Record<string, unknown>) =>
  expectStatus(await api(app, 'PATCH', `/v1/listings/${listingId}`, { key: agency.secret.key, body }), 200)
    .data as { updatedAt: string };

/** The listing as the public portal shows it, and the cached list's ETag. */
async function portal(): Promise<{ updatedAt: string; etag: string }> {
  const response = await api(app, 'GET', `/v1/properties/${listingId}`, { key: agency.publishable.key });
  const body = expectStatus(response, 200);
  return { updatedAt: body.data.updatedAt as string, etag: response.headers.etag as string };
}

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  const created = await api(app, 'POST', '/v1/listings', {
    key: agency.secret.key,
    body: {
      code: 'VIS-1',
      title: 'Piso con vistas',
      transactionType: 'SALE',
      type: 'APARTMENT',
      price: 300000,
      city: 'Málaga',
      photos: [{ url: 'https://images.example.com/vis.jpg' }],
    },
  });
  listingId = expectStatus(created, 201).data.id as string;
  urls = expectStatus(await api(app, 'POST', '/v1/feeds/token', { key: agency.secret.key }), 201).data.urls;
});

afterAll(async () => {
  await app.close();
});

describe('edits the portal and the feeds never show', () => {
  it('keep the feeds validators and the portal answer, and still move the listing API', async () => {
    const kyero = await feed(urls.kyero);
    const json = await feed(urls.json);
    const shown = await portal();
    // updatedAt is shown to the millisecond, kept to the microsecond: resume just after it.
    const resume = new Date(Date.parse(shown.updatedAt) + 1).toISOString();
    const walk = async () =>
      expectStatus(
        await api(app, 'GET', `/v1/properties?updatedAfter=${encodeURIComponent(resume)}`, {
          key: agency.publishable.key,
        }),
        200,
      ).data as unknown[];
    expect(await walk()).toEqual([]);

    const internal = await patch({ internalNotes: 'Keys at the office', customFields: { floorPlan: 'B' } });
    expect(Date.parse(internal.updatedAt)).toBeGreaterThan(Date.parse(shown.updatedAt));

    for (const [url, before] of [
      [urls.kyero, kyero],
      [urls.json, json],
    ] as const) {
      const again = await feed(url, { 'if-none-match': before.headers.etag as string });
      expect(again.statusCode, url).toBe(304);
      expect(withoutStamp((await feed(url)).body)).toBe(withoutStamp(before.body));
    }
    expect(await portal()).toEqual(shown);
    // A site mirroring the portal by updatedAfter is not sent the listing again.
    expect(await walk()).toEqual([]);
    // The agency's own views still show the change.
    const reso = await api(app, 'GET', `/v1/reso/Property('${listingId}')`, { key: agency.secret.key });
    expect(expectStatus(reso, 200).PrivateRemarks).toBe('Keys at the office');
  });

  it('an edit the portal shows changes the feeds ETag, the portal updatedAt, and the walk', async () => {
    const before = await feed(urls.kyero);
    const shown = await portal();
    await patch({ price: 295000, internalNotes: 'Price agreed with the owner' });
    const after = await feed(urls.kyero, { 'if-none-match': before.headers.etag as string });
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain('<price>295000</price>');
    const now = await portal();
    expect(Date.parse(now.updatedAt)).toBeGreaterThan(Date.parse(shown.updatedAt));
    expect(now.etag).not.toBe(shown.etag);
    // Sending the same shown values again changes nothing shown.
    const unchanged = await feed(urls.kyero);
    await patch({ price: 295000 });
    expect((await feed(urls.kyero, { 'if-none-match': unchanged.headers.etag as string })).statusCode).toBe(
      304,
    );
  });
});
