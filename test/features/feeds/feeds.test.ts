/**
 * Syndication feeds (issue 25 item 7) over HTTP: the token URLs (made, replaced, turned off), the Kyero
 * v3 XML feed validated against Kyero's schema (test/fixtures/kyero), the JSON feed, exactly the
 * published stock with every address-visibility level and language, polling validators (ETag,
 * Last-Modified, 304), scopes and tenant isolation.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { expectValidKyero } from '../../helpers/kyero.ts';
import { photoForm, solidJpeg } from '../../helpers/photo-form.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
let sequence = 0;

type Row = Record<string, unknown>;

async function create(owner: SpanishAgency, overrides: Row = {}): Promise<Row> {
  sequence += 1;
  const response = await api(app, 'POST', '/v1/listings', {
    key: owner.secret.key,
    body: {
      code: `FEED-${sequence}`,
      title: `Casa <luminosa> & ${sequence}`,
      description: 'Cerca del mar',
      transactionType: 'SALE',
      type: 'APARTMENT',
      price: 250000.5,
      city: 'Málaga',
      neighborhood: 'El Palo',
      address: 'Calle Mayor 12, 3ºB',
      zipCode: '29017',
      coordinates: { latitude: 36.721274, longitude: -4.421399 },
      amenities: ['pool', 'terrace'],
      photos: [
        { url: 'https://images.example.com/a.jpg', caption: 'Salón' },
        { url: 'https://picsum.photos/seed/x/800/600', caption: 'No extension' },
      ],
      ...overrides,
    },
  });
  return expectStatus(response, 201).data as Row;
}

/** Uploads a JPEG photo to the listing (multipart, as a browser sends it); its view. */
async function uploadPhoto(
  owner: SpanishAgency,
  listingId: string,
): Promise<{ url: string; jpegUrl: string }> {
  const bytes = await solidJpeg(800, 600);
  const body = await photoForm({}, { bytes, name: 'photo.jpg', type: 'image/jpeg' });
  const response = await api(app, 'POST', `/v1/listings/${listingId}/photos`, {
    key: owner.secret.key,
    headers: { 'content-type': body.contentType },
    body: body.payload,
  });
  return expectStatus(response, 201).data as { url: string; jpegUrl: string };
}

async function makeToken(owner: SpanishAgency) {
  const response = await api(app, 'POST', '/v1/feeds/token', { key: owner.secret.key });
  return expectStatus(response, 201).data as { token: string; urls: { kyero: string; json: string } };
}

const feed = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: new URL(url).pathname, headers });

let token: string;
let urls: { kyero: string; json: string };
const ids: Record<string, string> = {};
let uploaded: { url: string; jpegUrl: string };

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
  expectStatus(
    await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}`, {
      defaultLanguage: 'es',
      languages: ['es', 'en', 'pl'],
    }),
    200,
  );
  ids.exact = (
    await create(agency, {
      translations: {
        en: { title: 'Bright house', description: 'Near the sea' },
        // Not one of Kyero's 13 languages: in the JSON feed, not in Kyero's.
        pl: { title: 'Jasny dom', description: 'Blisko morza' },
      },
    })
  ).id as string;
  ids.street = (await create(agency, { addressVisibility: 'STREET', amenities: [] })).id as string;
  uploaded = await uploadPhoto(agency, ids.street);
  ids.hidden = (await create(agency, { addressVisibility: 'HIDDEN', transactionType: 'RENT', price: 1200 }))
    .id as string;
  ids.longCode = (
    await create(agency, { code: 'A-VERY-LONG-REFERENCE-CODE-42', city: 'Benidorm', zipCode: '03501' })
  ).id as string;
  ids.draft = (await create(agency, { status: 'DRAFT' })).id as string;
  ids.unpublished = (await create(agency, { publishedOnPortal: false })).id as string;
  ids.franc = (await create(agency, { currency: 'CHF' })).id as string;
  ids.others = (await create(other)).id as string;
  ({ token, urls } = await makeToken(agency));
}, 60_000);

afterAll(async () => {
  await app.close();
});

describe('feed settings', () => {
  it('makes a token shown once, with the two URLs; GET shows only its prefix', async () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(urls.kyero).toMatch(new RegExp(`/feeds/${token}/kyero\\.xml$`));
    expect(urls.json).toMatch(new RegExp(`/feeds/${token}/listings\\.json$`));
    const settings = expectStatus(await api(app, 'GET', '/v1/feeds', { key: agency.readOnly.key }), 200).data;
    expect(settings).toEqual({
      enabled: true,
      tokenPrefix: token.slice(0, 6),
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(settings)).not.toContain(token);
  });

  it('needs a secret key; making a token needs listings:write at level 3', async () => {
    expectError(await api(app, 'GET', '/v1/feeds', { key: agency.publishable.key }), 403, 'FORBIDDEN');
    expectError(
      await api(app, 'POST', '/v1/feeds/token', { key: agency.keys.noWrite.key }),
      403,
      'FORBIDDEN',
    );
    expectError(await api(app, 'POST', '/v1/feeds/token', { key: agency.keys.level2.key }), 403, 'FORBIDDEN');
    expectError(await api(app, 'POST', '/v1/feeds/token', { key: agency.readOnly.key }), 403, 'FORBIDDEN');
    expectError(
      await api(app, 'DELETE', '/v1/feeds/token', { key: agency.keys.level2.key }),
      403,
      'FORBIDDEN',
    );
  });

  it('answers 404 in the error envelope for a wrong token, a malformed one, and a replaced or removed one', async () => {
    for (const bad of ['x'.repeat(43), 'short', '../../etc']) {
      expectError(await app.inject({ method: 'GET', url: `/feeds/${bad}/kyero.xml` }), 404, 'NOT_FOUND');
    }
    const sibling = await create(other, { code: 'OTHER-2' });
    const first = await makeToken(other);
    expectStatus(await feed(first.urls.json), 200);
    const second = await makeToken(other);
    expectError(await feed(first.urls.json), 404, 'NOT_FOUND');
    const body = expectStatus(await feed(second.urls.json), 200) as { listings: { property: Row }[] };
    expect(body.listings.map((l) => l.property.id).sort()).toEqual([ids.others, sibling.id].sort());
    const off = expectStatus(
      await api(app, 'DELETE', '/v1/feeds/token', { key: other.secret.key }),
      200,
    ).data;
    expect(off).toEqual({ enabled: false, tokenPrefix: null, createdAt: null });
    expectError(await feed(second.urls.kyero), 404, 'NOT_FOUND');
  });
});

describe('the Kyero v3 feed', () => {
  it("validates against Kyero's schema and holds exactly the published listings Kyero can take", async () => {
    const response = await feed(urls.kyero);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
    await expectValidKyero(response.body);
    const listed = [...response.body.matchAll(/<property><id>([^<]+)<\/id>/g)].map((m) => m[1]);
    // Not the draft, the unpublished one, another agency's, or the one priced in CHF.
    expect(listed.sort()).toEqual([ids.exact, ids.street, ids.hidden, ids.longCode].sort());
  });

  it("maps a listing to Kyero elements: price, frequency, ref, province, features, jpg images (uploads as JPEG), Kyero's languages", async () => {
    const xml = (await feed(urls.kyero)).body;
    const property = (id: string) =>
      xml.match(new RegExp(`<property><id>${id}</id>[\\s\\S]*?</property>`))?.[0] ?? '';
    const exact = property(ids.exact as string);
    expect(exact).toContain('<price>250001</price><currency>EUR</currency><price_freq>sale</price_freq>');
    expect(exact).toContain('<town>Málaga</town><province>Málaga</province>');
    expect(exact).toContain(
      '<location><latitude>36.721274</latitude><longitude>-4.421399</longitude></location>',
    );
    expect(exact).toContain('<pool>1</pool>');
    expect(exact).toContain('<feature>Swimming pool</feature><feature>Terrace</feature>');
    expect(exact).toContain(
      '<es>Casa &lt;luminosa&gt; &amp; 1\n\nCerca del mar</es><en>Bright house\n\nNear the sea</en>',
    );
    expect(exact).toContain(
      '<images><image id="1"><url>https://images.example.com/a.jpg</url></image></images>',
    );
    expect(exact).not.toContain('picsum');
    expect(exact).not.toContain('Jasny dom');
    // The whole code (Kyero takes 255 characters), and the province of a Spanish postal code; without
    // a postal code shown (HIDDEN), the town.
    const longCode = property(ids.longCode as string);
    expect(longCode).toContain('<ref>A-VERY-LONG-REFERENCE-CODE-42</ref>');
    expect(longCode).toContain('<town>Benidorm</town><province>Alicante</province>');
    expect(property(ids.hidden as string)).toContain('<town>Málaga</town><province>Málaga</province>');
    expect(property(ids.hidden as string)).toContain('<price_freq>month</price_freq>');
    expect(property(ids.street as string)).toContain('<features><feature>For sale</feature></features>');
    // An uploaded photo is WebP in its sizes: Kyero gets its JPEG rendition, which is served.
    expect(uploaded.url).toMatch(/\/800\.webp$/);
    expect(uploaded.jpegUrl).toMatch(/\/800\.jpg$/);
    expect(property(ids.street as string)).toContain(
      '<images><image id="1"><url>https://images.example.com/a.jpg</url></image>' +
        `<image id="2"><url>${uploaded.jpegUrl}</url></image></images>`,
    );
    const jpeg = await feed(uploaded.jpegUrl);
    expect([jpeg.statusCode, jpeg.headers['content-type']]).toEqual([200, 'image/jpeg']);
  });

  it('applies address visibility to the coordinates it gives', async () => {
    const xml = (await feed(urls.kyero)).body;
    const location = (id: string) =>
      xml.match(new RegExp(`<property><id>${id}</id>.*?<location>(.*?)</location>`))?.[1];
    expect(location(ids.exact as string)).toBe(
      '<latitude>36.721274</latitude><longitude>-4.421399</longitude>',
    );
    expect(location(ids.street as string)).toBe('<latitude>36.721</latitude><longitude>-4.421</longitude>');
    expect(location(ids.hidden as string)).toBe('<latitude>36.72</latitude><longitude>-4.42</longitude>');
  });
});

describe('the JSON feed', () => {
  it("gives the portal's view of each published listing with its texts, every visibility applied", async () => {
    const response = await feed(urls.json);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json() as { organization: Row; listings: { property: Row; texts: Row[] }[] };
    expect(body.organization).toEqual({
      id: agency.org.id,
      name: expect.any(String),
      defaultLanguage: 'es',
      languages: ['es', 'en', 'pl'],
    });
    const byId = new Map(
      body.listings.map((entry) => [entry.property.id, { ...entry.property, texts: entry.texts }]),
    );
    expect([...byId.keys()].sort()).toEqual(
      [ids.exact, ids.street, ids.hidden, ids.longCode, ids.franc].sort(),
    );
    expect(byId.get(ids.exact)).toMatchObject({
      address: 'Calle Mayor 12, 3ºB',
      zipCode: '29017',
      texts: [
        { language: 'es', title: 'Casa <luminosa> & 1', description: 'Cerca del mar' },
        { language: 'en', title: 'Bright house', description: 'Near the sea' },
        { language: 'pl', title: 'Jasny dom', description: 'Blisko morza' },
      ],
    });
    expect(byId.get(ids.street)).toMatchObject({ address: 'Calle Mayor', zipCode: '29017' });
    expect(byId.get(ids.hidden)).toMatchObject({
      address: null,
      zipCode: null,
      coordinates: { latitude: 36.72, longitude: -4.42 },
    });
    for (const { property } of body.listings) {
      expect(property).not.toHaveProperty('internalNotes');
      expect(property).not.toHaveProperty('customFields');
    }
  });
});

describe('polling', () => {
  it('answers 304 to If-None-Match or If-Modified-Since until the published stock changes', async () => {
    // Last-Modified is only given once the second of the last change is more than a second past.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    for (const url of [urls.kyero, urls.json]) {
      const first = await feed(url);
      const etag = first.headers.etag as string;
      const lastModified = first.headers['last-modified'] as string;
      expect(etag).toMatch(/^W\/"(kyero|json)-/);
      expect(first.headers['cache-control']).toBe('no-cache');
      expect(Date.parse(lastModified)).not.toBeNaN();
      const byEtag = await feed(url, { 'if-none-match': etag });
      expect(byEtag.statusCode).toBe(304);
      expect(byEtag.body).toBe('');
      expect((await feed(url, { 'if-modified-since': lastModified })).statusCode).toBe(304);
      // If-None-Match decides when both are sent.
      expect(
        (await feed(url, { 'if-none-match': '"other"', 'if-modified-since': lastModified })).statusCode,
      ).toBe(200);
    }
    const before = (await feed(urls.kyero)).headers.etag as string;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const changed = await api(app, 'PATCH', `/v1/listings/${ids.exact}`, {
      key: agency.secret.key,
      body: { price: 240000 },
    });
    expectStatus(changed, 200);
    const after = await feed(urls.kyero, { 'if-none-match': before });
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain('<price>240000</price>');
    const stale = (
      await feed(urls.json, { 'if-modified-since': new Date(Date.now() - 60_000).toUTCString() })
    ).statusCode;
    expect(stale).toBe(200);
  });

  it('never answers 304 for a feed that changed, even twice within one second with a poll between', async () => {
    let price = 250_000;
    const change = async () => {
      price += 1000;
      const patched = await api(app, 'PATCH', `/v1/listings/${ids.exact}`, {
        key: agency.secret.key,
        body: { price },
      });
      expectStatus(patched, 200);
    };
    // The poll between two quick changes is told no date (the second is not over): only the ETag.
    for (let attempt = 0; attempt < 10; attempt++) {
      await change();
      const polled = await feed(urls.kyero);
      expect(polled.headers['last-modified']).toBeUndefined();
      await change();
      const again = await feed(urls.kyero, { 'if-none-match': polled.headers.etag as string });
      expect(again.statusCode).toBe(200);
      expect(again.body).toContain(`<price>${price}</price>`);
    }
    // Told a date once the change is old enough, a client asking with it alone sees the next change.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const settled = await feed(urls.kyero);
    const lastModified = settled.headers['last-modified'] as string;
    expect(Math.floor(Date.parse(lastModified) / 1000)).toBeLessThan(Math.floor(Date.now() / 1000) - 1);
    expect((await feed(urls.kyero, { 'if-modified-since': lastModified })).statusCode).toBe(304);
    await change();
    const byDate = await feed(urls.kyero, { 'if-modified-since': lastModified });
    expect(byDate.statusCode).toBe(200);
    expect(byDate.body).toContain(`<price>${price}</price>`);
  });

  it('compresses with br or gzip when asked, the same feed and the same validators', async () => {
    for (const url of [urls.kyero, urls.json]) {
      const plain = await feed(url);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toContain('Accept-Encoding');
      for (const [encoding, decode] of [
        ['gzip', gunzipSync],
        ['br', brotliDecompressSync],
      ] as const) {
        const packed = await feed(url, { 'accept-encoding': encoding });
        expect(packed.statusCode).toBe(200);
        expect(packed.headers['content-encoding']).toBe(encoding);
        expect(packed.headers.etag).toBe(plain.headers.etag);
        // The same feed but for the instant it was generated at.
        const generated = /"generatedAt":"[^"]+"|<feed_generated>[^<]+<\/feed_generated>/g;
        expect(decode(packed.rawPayload).toString('utf8').replace(generated, '')).toBe(
          plain.body.replace(generated, ''),
        );
        expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length);
        expect(
          (await feed(url, { 'accept-encoding': encoding, 'if-none-match': plain.headers.etag as string }))
            .statusCode,
        ).toBe(304);
      }
    }
  });
});
