/**
 * The visitor's page (issue 26 item 3, decision 0237) in Chromium: the booking answer's `manageUrl`
 * opened as a visitor opens it from a message, with no key. It shows the visit, moves it to a slot
 * picked from the agent's free times, and cancels it (the browser's confirm accepted); the database
 * holds the result. The page's Content-Security-Policy lets it talk to its own origin only.
 */
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, offlineContext } from '../helpers/browser.ts';
import { busyPublishableKey, createAgent, createTenant } from '../helpers/factories.ts';
import { admin, api, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { listen } from '../client/support.ts';

const DAY = 86_400_000;
let app: FastifyInstance;
let origin: string;
let browser: Browser;
let page: Page;
let manageUrl: string;
let appointmentId: string;
let orgId: string;
const day = new Date(Date.now() + 3 * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  app = await buildTestApp();
  origin = await listen(app);
  const tenant = await createTenant(app);
  orgId = tenant.org.id;
  const slug = `visit-page-${Date.now().toString(36)}`;
  await createAgent(app, orgId, {
    firstName: 'Lucía',
    lastName: 'Romero',
    bookingSlug: slug,
    booking: {
      timezone: 'UTC',
      weekdays: [1, 2, 3, 4, 5, 6, 7],
      startTime: '09:00',
      endTime: '12:00',
      slotMinutes: 60,
    },
  });
  const booked = await api(app, 'POST', `/v1/booking/${slug}`, {
    key: await busyPublishableKey(app, orgId),
    body: { firstName: 'Marta', phone: '+34611222333', date: day, startTime: '09:00' },
  });
  const receipt = expectStatus(booked, 201).data.data as { appointmentId: string; manageUrl: string };
  appointmentId = receipt.appointmentId;
  // The link names the address the booking came to; the browser reaches the listening server.
  manageUrl = `${origin}${new URL(receipt.manageUrl).pathname}`;
  browser = await launchChromium();
  page = await (await offlineContext(browser, [origin])).newPage();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app.close();
});

async function stored() {
  const response = await admin(app, 'GET', `/admin/v1/organizations/${orgId}/appointments/${appointmentId}`);
  return expectStatus(response, 200).data as { status: string; startsAt: string };
}

it('shows the visit from its link, with no key and a page held to its own origin', async () => {
  const response = await page.goto(manageUrl);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("connect-src 'self'");
  expect(response?.headers()['referrer-policy']).toBe('no-referrer');
  await page.waitForSelector('#visit:not([hidden])');
  expect(await page.textContent('#when')).toBe(`${day} at 09:00 (UTC)`);
  expect(await page.textContent('#agent')).toBe('Lucía Romero');
  // The agent does not auto-confirm: the booking is SCHEDULED.
  expect(await page.textContent('#state')).toBe('scheduled');
  expect((await stored()).status).toBe('SCHEDULED');
});

it('moves the visit to a free slot picked on the page', async () => {
  await page.click('#move');
  await page.waitForSelector('#slots:not([hidden]) button.slot');
  await page.click(`#dates li:has-text("${day}") button.slot:has-text("11:00")`);
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Moved to'));
  expect(await page.textContent('#when')).toBe(`${day} at 11:00 (UTC)`);
  expect((await stored()).startsAt).toBe(`${day}T11:00:00.000Z`);
});

it('cancels the visit once the visitor confirms', async () => {
  page.once('dialog', (dialog) => void dialog.accept());
  await page.click('#cancel');
  await page.waitForFunction(
    () => document.getElementById('status')?.textContent === 'Your visit is cancelled.',
  );
  expect(await page.textContent('#state')).toBe('cancelled');
  expect(await page.isHidden('#actions')).toBe(true);
  expect((await stored()).status).toBe('CANCELLED');
});

it('says so when the link is not valid', async () => {
  await page.goto(`${manageUrl.slice(0, -3)}xyz`);
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('not found'));
  expect(await page.isHidden('#visit')).toBe(true);
});
