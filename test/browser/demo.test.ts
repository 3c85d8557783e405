/**
 * The demo portal page in a real browser (Debian's Chromium through playwright-core). The API is
 * the real service listening on 127.0.0.1; the page is served by a separate static server on
 * `localhost` (another origin), as an agency's own website would host it, so every call crosses
 * CORS with a publishable key. What the page did is then checked through the secret-key API.
 */
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WEB_DIR, type DemoPortalSettings } from '../../src/features/demo/demo.routes.ts';
import { launchChromium, offlineContext, serveStatic } from '../helpers/browser.ts';
import {
  createAgent,
  createApiKey,
  createProperty,
  createTenant,
  type Tenant,
} from '../helpers/factories.ts';
import { admin, api, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';

const ALL_WEEK = [1, 2, 3, 4, 5, 6, 7];

let app: FastifyInstance;
let apiOrigin: string;
let site: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
let tenant: Tenant;
let seaView: { id: string };
let approximate: { id: string };
const demoPortal: DemoPortalSettings = { publishableKey: null };

const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  app = await buildTestApp({}, { demoPortal });
  await app.listen({ host: '127.0.0.1', port: 0 });
  apiOrigin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  tenant = await createTenant(app);
  const org = tenant.org.id;
  // Bookable all day, every day, so a free slot exists whenever the test runs.
  const bookable = (firstName: string, autoConfirm: boolean) =>
    createAgent(app, org, {
      firstName,
      bookingSlug: `${firstName
        .toLowerCase()
        .normalize('NFD')
        .replace(/[^a-z]/g, '')}-demo`,
      booking: {
        timezone: 'UTC',
        weekdays: ALL_WEEK,
        startTime: '00:00',
        endTime: '23:30',
        slotMinutes: 30,
        autoConfirm,
      },
    });
  const lucia = await bookable('Lucía', true);
  await bookable('Javier', false);
  // Enough listings for a second page of 12 (created first: the newest come first).
  for (let i = 0; i < 12; i += 1) {
    await createProperty(app, org, {
      title: `Valencia flat ${i + 1}`,
      city: 'Valencia',
      price: 150_000 + i * 1000,
    });
  }
  seaView = await createProperty(app, org, {
    title: 'Sea view flat in Málaga',
    city: 'Málaga',
    price: 300_000,
    bedrooms: 2,
    amenities: ['pool', 'elevator'],
    agentId: lucia.id,
  });
  approximate = await createProperty(app, org, {
    title: 'Family house in Sevilla',
    type: 'HOUSE',
    city: 'Sevilla',
    neighborhood: 'Triana',
    address: 'Calle Secreta 7',
    price: 450_000,
    bedrooms: 4,
    approximateLocation: true,
    coordinates: { latitude: 37.383456, longitude: -6.003456 },
  });
  site = await serveStatic(DEMO_WEB_DIR, 'localhost');
  browser = await launchChromium();
});

afterEach(async () => {
  while (contexts.length) await contexts.pop()?.close();
  demoPortal.publishableKey = null;
  const errors = pageErrors.splice(0);
  expect(errors, 'uncaught errors or CSP violations in the page').toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await app?.close();
});

async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const context = await offlineContext(browser, [apiOrigin, site.url], options);
  contexts.push(context);
  // Fail with playwright's message before vitest's 30 s test timeout. Not 10 s: with the other test
  // worker starting service processes on the second core, a first page load once took longer.
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) pageErrors.push(message.text());
  });
  return page;
}

/** Opens the static copy of the page (another origin than the API) and connects with `key`. */
async function openSite(key: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const page = await newPage(options);
  await page.goto(`${site.url}/`);
  // The page has read config.json and set up its forms (it marks the body when done).
  await page.locator('body[data-ready="true"]').waitFor();
  expect(new URL(page.url()).origin).not.toBe(apiOrigin);
  await page.getByLabel('API base URL').fill(apiOrigin);
  await page.getByLabel('Publishable key').fill(key);
  await page.getByRole('button', { name: 'Connect' }).click();
  return page;
}

async function openProperty(page: Page, title: string) {
  await page.getByRole('link', { name: title }).click();
  const dialog = page.locator('#property-dialog');
  await expect.poll(() => dialog.locator('#property-title').textContent()).toBe(title);
  return dialog;
}

function eventSent(page: Page, type: string) {
  return page.waitForResponse(
    (response) =>
      response.url().endsWith('/v1/events') && (response.request().postData() ?? '').includes(`"${type}"`),
  );
}

async function contactsByPhone(phone: string) {
  const body = expectStatus(
    await api(app, 'GET', '/v1/contacts', { key: tenant.secret.key, query: { q: phone } }),
    200,
  );
  return body.data as { id: string; firstName: string; phone: string }[];
}

async function contactCount(): Promise<number> {
  return expectStatus(await api(app, 'GET', '/v1/contacts', { key: tenant.secret.key }), 200).meta.total;
}

describe('demo portal from another origin (CORS, publishable key)', () => {
  it('searches with filters, pages, opens a property and sends a lead that becomes a contact', async () => {
    const page = await openSite(tenant.publishable.key);
    const summary = page.locator('#results-summary');
    await expect.poll(() => summary.textContent()).toBe('14 properties found · page 1 of 2');
    expect(await page.locator('#results .card').count()).toBe(12);
    // Offline: the listing photos fall back to the local placeholder.
    await expect
      .poll(() =>
        page
          .locator('#results .card img')
          .first()
          .evaluate((img: HTMLImageElement) => img.currentSrc),
      )
      .toContain('placeholder.svg');

    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => summary.textContent()).toBe('14 properties found · page 2 of 2');

    // Filters come from GET /v1/filters: the city list holds the cities that have listings.
    const search = page.locator('#search-form');
    await search.getByLabel('City').selectOption('Málaga');
    await search.getByLabel('Pool').check();
    const searched = eventSent(page, 'SEARCH');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => summary.textContent()).toBe('1 property found · page 1 of 1');
    await searched;

    const viewed = eventSent(page, 'PROPERTY_VIEW');
    const dialog = await openProperty(page, 'Sea view flat in Málaga');
    await viewed;
    expect(await dialog.getByText('Address:').isVisible()).toBe(true);

    await dialog.getByLabel('First name').first().fill('Marta');
    await dialog.locator('#lead-phone').fill('+34 611 222 333');
    await dialog.locator('#lead-email').fill('marta@example.com');
    await dialog.getByLabel('Message (optional)').fill('Is it still available?');
    const leadEvent = eventSent(page, 'LEAD_FORM');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => dialog.locator('#lead-form .form-status').textContent())
      .toBe('Thank you, Marta: an agent will contact you soon.');
    await leadEvent;

    const [contact] = await contactsByPhone('+34611222333');
    expect(contact, 'the lead is a contact').toMatchObject({ firstName: 'Marta', phone: '+34611222333' });

    // The page's analytics events were accepted and are counted.
    await app.analytics.flush();
    const report = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${tenant.org.id}/analytics`),
      200,
    );
    const totals = JSON.stringify(report.data);
    for (const type of ['PAGE_VIEW', 'SEARCH', 'PROPERTY_VIEW', 'LEAD_FORM']) expect(totals).toContain(type);
  });

  it('shows an approximate location as an area, without the address', async () => {
    const page = await openSite(tenant.publishable.key);
    await page.locator('#results .card').first().waitFor();
    const dialog = await openProperty(page, 'Family house in Sevilla');
    expect(await dialog.locator('#lead-form input[name="propertyId"]').inputValue()).toBe(approximate.id);
    const location = dialog.locator('.location');
    expect(await location.textContent()).toContain('Approximate location: Triana, Sevilla');
    expect(await location.locator('.area').count()).toBe(1);
    expect(await location.locator('.pin').count()).toBe(0);
    expect(await dialog.textContent()).not.toContain('Calle Secreta');
    expect(await location.textContent()).toContain('37.38° N, 6.00° W');
  });

  it('shows the API validation errors next to the fields they name', async () => {
    const page = await openSite(tenant.publishable.key);
    await page.locator('#results .card').first().waitFor();

    // A query error (query.priceMin) lands under the search field.
    await page.getByLabel('Minimum price').fill('-5');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const priceError = page.locator('#search-form-priceMin-error');
    await expect.poll(() => priceError.textContent()).toContain('>= 0');
    expect(await page.getByLabel('Minimum price').getAttribute('aria-invalid')).toBe('true');

    const before = await contactCount();
    const dialog = await openProperty(page, 'Sea view flat in Málaga');
    await dialog.locator('#lead-firstName').fill('M');
    await dialog.locator('#lead-phone').fill('12');
    await dialog.getByRole('button', { name: 'Send' }).click();
    const phoneError = dialog.locator('#lead-form-phone-error');
    await expect.poll(() => phoneError.textContent()).toContain('fewer than 7 characters');
    expect(await dialog.locator('#lead-form-firstName-error').textContent()).toContain(
      'fewer than 2 characters',
    );
    const phone = dialog.locator('#lead-phone');
    expect(await phone.getAttribute('aria-invalid')).toBe('true');
    expect(await phone.getAttribute('aria-describedby')).toContain('lead-form-phone-error');
    // The invalid field gets the focus, so keyboard and screen-reader users land on it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('lead-firstName');
    expect(await contactCount(), 'a refused lead stores nothing').toBe(before);
  });

  it('books a slot: CONFIRMED with an auto-confirming agent, SCHEDULED otherwise; the appointments exist', async () => {
    const page = await openSite(tenant.publishable.key);
    const agents = page.locator('#booking-agents input[type="radio"]');
    await expect.poll(() => agents.count()).toBe(2);

    for (const [agent, expected] of [
      ['Lucía', 'CONFIRMED'],
      ['Javier', 'SCHEDULED'],
    ] as const) {
      await page.locator('#booking-agents label', { hasText: agent }).click();
      const freeDay = page.locator('#calendar .day.free');
      await expect.poll(() => page.locator('#calendar-timezone').textContent()).toContain('Times are in UTC');
      // Late on a month's last day nothing is left this month: the next month has free days.
      if ((await freeDay.count()) === 0) await page.getByRole('button', { name: 'Next month' }).click();
      await freeDay.first().click();
      await page.locator('#slots .slot').first().click();
      await page.locator('#booking-firstName').fill(`Ana ${agent}`);
      await page
        .locator('#booking-phone')
        .fill(expected === 'CONFIRMED' ? '+34 600 111 001' : '+34 600 111 002');
      await page.getByRole('button', { name: 'Book this time' }).click();
      const result = page.locator('#booking-result');
      await expect.poll(() => result.getAttribute('data-status')).toBe(expected);
      expect(await result.textContent()).toContain(expected);

      const appointmentId = await result.getAttribute('data-appointment-id');
      const appointment = expectStatus(
        await api(app, 'GET', `/v1/appointments/${appointmentId}`, { key: tenant.secret.key }),
        200,
      ).data;
      expect(appointment).toMatchObject({ id: appointmentId, status: expected });
      await result.evaluate((node) => {
        node.removeAttribute('data-status');
      });
    }
  });

  it('runs the finder wizard and shows the matches with their score breakdown', async () => {
    const page = await openSite(tenant.publishable.key);
    await page.locator('#results .card').first().waitFor();
    const finder = page.locator('#finder-form');
    const next = finder.getByRole('button', { name: 'Next' });

    await finder.getByLabel('Buy or rent').selectOption('SALE');
    await next.click();
    await finder.getByLabel('City').fill('malaga');
    await next.click();
    await finder.getByLabel('Budget up to').fill('350000');
    await finder.getByLabel('Bedrooms, at least').fill('2');
    await next.click();
    await finder.getByLabel('Pool').check();
    await next.click();
    expect(await page.locator('#finder-progress').textContent()).toBe('Step 5 of 5: Your details');
    await finder.getByLabel('First name').fill('Pablo');
    await finder.getByLabel('Phone').fill('+34 699 000 111');
    const submitted = eventSent(page, 'FINDER_SUBMIT');
    await finder.getByRole('button', { name: 'Show my matches' }).click();

    const best = page.locator('#finder-results .match').first();
    await best.waitFor();
    await submitted;
    expect(await best.getAttribute('data-property-id')).toBe(seaView.id);
    expect(await best.locator('.score-value').textContent()).toBe('100% match');
    const rows = best.locator('.breakdown tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.criterion))).toEqual([
      'transactionType',
      'budget',
      'location',
      'bedrooms',
      'amenities',
    ]);
    expect(await rows.first().textContent()).toContain('Match');

    const [contact] = await contactsByPhone('+34699000111');
    expect(contact).toMatchObject({ firstName: 'Pablo' });
  });

  it('tells the visitor never to put a secret key in a browser when the API answers SECRET_KEY_IN_BROWSER', async () => {
    const page = await openSite(tenant.secret.key);
    const warning = page.locator('#secret-key-warning');
    await warning.waitFor();
    expect(await warning.locator('h3').textContent()).toBe('Never put a secret key in a browser');
    expect(await warning.textContent()).toContain('SECRET_KEY_IN_BROWSER');
    expect(
      await page.getByLabel('Publishable key').inputValue(),
      'the secret key is removed from the page',
    ).toBe('');
    expect(await page.locator('#results .card').count()).toBe(0);
  });

  it('shows a 429 with its Retry-After and pauses the form', async () => {
    const limited = await createApiKey(app, tenant.org.id, { type: 'publishable', writeLimitPerMinute: 1 });
    const page = await newPage();
    const pageView = eventSent(page, 'PAGE_VIEW');
    await page.goto(`${site.url}/`);
    await page.getByLabel('API base URL').fill(apiOrigin);
    await page.getByLabel('Publishable key').fill(limited.key);
    await page.getByRole('button', { name: 'Connect' }).click();
    expect((await pageView).status(), 'the one write of the minute').toBe(200);

    const dialog = await openProperty(page, 'Sea view flat in Málaga');
    await dialog.locator('#lead-firstName').fill('Rosa');
    await dialog.locator('#lead-phone').fill('+34 611 999 888');
    const answer = page.waitForResponse((r) => r.url().endsWith('/v1/leads'));
    await dialog.getByRole('button', { name: 'Send' }).click();
    const response = await answer;
    expect(response.status()).toBe(429);
    const retryAfter = Number(response.headers()['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    await expect
      .poll(() => dialog.locator('#lead-form .form-status').textContent())
      .toContain(`(Retry-After: ${retryAfter})`);
    expect(await dialog.locator('#lead-form button[type="submit"]').isDisabled()).toBe(true);
  });
});

describe('demo portal served by the service at /demo/', () => {
  it('starts with the injected publishable key and works same-origin', async () => {
    demoPortal.publishableKey = tenant.publishable.key;
    const page = await newPage();
    await page.goto(`${apiOrigin}/demo/`);
    await expect.poll(() => page.locator('#connection-summary').isVisible()).toBe(true);
    await expect
      .poll(() => page.locator('#results-summary').textContent())
      .toBe('14 properties found · page 1 of 2');
    expect(await page.locator('#agency-name').textContent()).toBe(tenant.org.name);
    const dialog = await openProperty(page, 'Sea view flat in Málaga');
    expect(await dialog.isVisible()).toBe(true);
  });

  it('works with the keyboard and fits a 390 px phone screen', async () => {
    demoPortal.publishableKey = tenant.publishable.key;
    const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.goto(`${apiOrigin}/demo/`);
    const first = page.locator('#results .card-link').first();
    await first.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // The skip link is the first stop of the keyboard.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');

    await first.focus();
    const id = await first.getAttribute('data-property-id');
    await page.keyboard.press('Enter');
    const dialog = page.locator('#property-dialog');
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    // Focus goes back to the listing the visitor came from.
    expect(
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.propertyId),
    ).toBe(id);
  });
});
