/**
 * The developer console in a real browser (Chromium, playwright-core) against a started server:
 * a one-time link signs in (and fails the second time), a key is created and shown once, works,
 * is rolled (both keys work during the overlap); a webhook to a local receiver gets a test event,
 * its delivery shows up and is resent; the endpoint is edited, its secret revealed and rotated, each
 * attempt's request and answer shown, events recovered; the event and where it went are browsed; the
 * live rate-limit usage is shown; the email log of the last 7 days is browsed; a failed request is found in the request logs by its id;
 * another organization's console sees none of it; requests without the cookie or from another
 * origin are refused. CONSOLE_SCREENSHOTS=docs writes docs/console-*.png (npm run console:screenshots).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningJobs } from '../../src/platform/jobs/scheduler.ts';
import { listen } from '../client/support.ts';
import { seedEmail } from '../features/email/support.ts';
import { Receiver } from '../features/webhooks/receiver.ts';
import { eventually, startWorker } from '../features/webhooks/support.ts';
import { launchChromium, offlineContext } from '../helpers/browser.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, expectStatus } from '../helpers/http.ts';
import { buildTestApp, testDatabase } from '../helpers/test-app.ts';

let app: FastifyInstance;
let base: string;
let worker: RunningJobs;
let receiver: Receiver;
let browser: Browser;
let tenant: Tenant;
let other: Tenant;
let context: BrowserContext;
let page: Page;
let signingSecret = '';
const SHOTS =
  process.env.CONSOLE_SCREENSHOTS === 'docs'
    ? new URL('../../docs/', import.meta.url).pathname
    : mkdtempSync(join(tmpdir(), 'console-shots-'));

async function mintLink(orgId: string): Promise<string> {
  return expectStatus(await admin(app, 'POST', `/admin/v1/organizations/${orgId}/console-links`), 201).data
    .url;
}

/** The link as minted points at the address of the minting request: send the browser to the server. */
const onServer = (url: string) => `${base}${new URL(url).pathname}${new URL(url).search}`;

async function signedIn(orgId: string, viewport = { width: 1280, height: 900 }) {
  const ctx = await offlineContext(browser, [base], { viewport });
  const p = await ctx.newPage();
  await p.goto(onServer(await mintLink(orgId)));
  await p.waitForSelector('body[data-ready="true"]');
  return { ctx, page: p };
}

const v1 = (key: string, path = '/v1/me') => fetch(`${base}${path}`, { headers: { 'X-API-Key': key } });

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  base = await listen(app);
  worker = startWorker(await testDatabase());
  receiver = await new Receiver().start();
  tenant = await createTenant(app);
  other = await createTenant(app);
  browser = await launchChromium();
  ({ ctx: context, page } = await signedIn(tenant.org.id));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await receiver?.close();
  await app?.close();
});

describe('the developer console in Chromium', () => {
  it('opens from a one-time link, which then no longer works', async () => {
    await page.locator('#org-name', { hasText: tenant.org.name }).waitFor();
    const link = onServer(await mintLink(tenant.org.id));
    const fresh = await offlineContext(browser, [base]);
    const first = await fresh.newPage();
    await first.goto(link);
    await first.waitForSelector('body[data-ready="true"]');
    const again = await (await fresh.newPage()).goto(link);
    expect(again?.status()).toBe(410);
    expect(await again?.text()).toMatch(/not valid/);
    await fresh.close();
  });

  it('creates a key and shows it once; it works; a roll gives a second key, both work in the overlap', async () => {
    await page.selectOption('#key-type', 'secret');
    await page.fill('#key-name', 'Browser key');
    await page.click('#key-form button[type="submit"]');
    await page.locator('#new-key').waitFor({ state: 'visible' });
    const key = (await page.textContent('#new-key-value')) ?? '';
    expect(key).toMatch(/^service_sk_live_/);
    expect((await v1(key)).status).toBe(200);
    await page.screenshot({ path: join(SHOTS, 'console-keys.png'), fullPage: true });

    // Never again, not even after a reload.
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.isVisible('#new-key')).toBe(false);
    expect(await page.content()).not.toContain(key);

    page.once('dialog', (dialog) => void dialog.accept('2'));
    const row = page.locator('#keys-table tr', { hasText: key.slice(0, 20) });
    await row.locator('button', { hasText: 'Roll' }).click();
    await page.locator('#status', { hasText: 'Rolled' }).waitFor();
    const rolled = (await page.textContent('#new-key-value')) ?? '';
    expect(rolled).toMatch(/^service_sk_live_/);
    expect(rolled).not.toBe(key);
    for (const k of [key, rolled]) expect((await v1(k)).status).toBe(200);
  });

  it('adds a webhook to a local receiver, sends a test event, shows its delivery and resends it', async () => {
    await page.click('.tab[data-tab="webhooks"]');
    await page.fill('#webhook-url', receiver.url('/console'));
    await page.fill('#webhook-description', 'Local receiver');
    await page.click('#webhook-form button[type="submit"]');
    await page.locator('#new-secret').waitFor({ state: 'visible' });
    signingSecret = (await page.textContent('#new-secret-value')) ?? '';
    expect(signingSecret).toMatch(/^whsec_/);

    await page.locator('#webhooks-table button', { hasText: 'Send test event' }).click();
    await receiver.waitFor(1, '/console', 15_000);
    // The log catches up with the delivery: refresh until it shows SUCCEEDED.
    await eventually(async () => {
      await page.locator('#webhooks-table button', { hasText: 'Deliveries' }).click();
      await page.locator('#deliveries-table', { hasText: 'SUCCEEDED' }).waitFor({ timeout: 500 });
    }, 15_000);
    await page.locator('#deliveries-table', { hasText: 'webhook.test' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'console-webhooks.png'), fullPage: true });

    await page.locator('#deliveries-table button', { hasText: 'Resend' }).first().click();
    await page.locator('#status', { hasText: 'queued again' }).waitFor();
    // The resend carries the first delivery's event id again (the endpoint, subscribed to every event,
    // also gets the webhook.delivery_retried event that records the resend).
    await eventually(async () => {
      const ids = receiver.at('/console').map((r) => r.headers['webhook-id']);
      expect(ids.filter((id) => id === ids[0])).toHaveLength(2);
    }, 15_000);
  });

  it('edits the endpoint, reveals its secret after a confirm, rotates it and shows every attempt', async () => {
    await page.locator('#webhooks-table button', { hasText: 'Edit' }).click();
    await page.locator('#webhook-form-title', { hasText: 'Edit endpoint' }).waitFor();
    expect(await page.inputValue('#webhook-url')).toBe(receiver.url('/console'));
    await page.fill('#webhook-description', 'Edited receiver');
    await page.uncheck('#event-types input[value="*"]');
    await page.check('#event-types input[value="webhook.test"]');
    await page.click('#webhook-submit');
    await page.locator('#status', { hasText: 'Endpoint saved' }).waitFor();
    await page.locator('#webhooks-table', { hasText: 'Edited receiver' }).waitFor();
    expect(await page.textContent('#webhooks-table')).toMatch(/100% of \d+ · p50 \d+ ms/);

    await page.locator('#webhooks-table button', { hasText: 'Deliveries' }).click();
    await page.locator('#endpoint-stats', { hasText: 'Last 24 hours' }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#reveal-secret');
    await page.locator('#new-secret-value', { hasText: signingSecret }).waitFor();

    const testRow = page.locator('#deliveries-table tr', { hasText: 'webhook.test' }).first();
    await testRow.locator('button', { hasText: 'Details' }).click();
    await page.locator('#delivery-detail').waitFor({ state: 'visible' });
    expect(await page.textContent('#delivery-request-body')).toContain('"type": "webhook.test"');
    const attempts = (await page.textContent('#delivery-attempts')) ?? '';
    expect(attempts).toContain('webhook-signature: v1,');
    expect(attempts).toMatch(/content-type: text\/plain/);
    await page.screenshot({ path: join(SHOTS, 'console-delivery.png'), fullPage: true });

    await page.fill('#rotate-hours', '1');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#rotate-form button[type="submit"]');
    await page.locator('#status', { hasText: 'Rotated' }).waitFor();
    const rotated = (await page.textContent('#new-secret-value')) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(signingSecret);

    await page.click('#recover-form button[type="submit"]');
    await page.locator('#status', { hasText: 'Queued' }).waitFor();
  });

  it("browses the events, shows one's JSON and the endpoints it was delivered to", async () => {
    await page.click('.tab[data-tab="events"]');
    await page.selectOption('#events-type', 'webhook.test');
    await page.click('#events-form button[type="submit"]');
    await page.locator('#events-table', { hasText: 'webhook.test' }).waitFor();
    await page.locator('#events-table button', { hasText: 'View' }).first().click();
    await page.locator('#event-json', { hasText: '"type": "webhook.test"' }).waitFor();
    await page.locator('#event-deliveries-table', { hasText: receiver.url('/console') }).waitFor();
    await page.locator('#event-deliveries-table', { hasText: 'SUCCEEDED' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'console-events.png'), fullPage: true });
  });

  it("shows the console's endpoint changes as events of the actor CONSOLE", async () => {
    await page.selectOption('#events-type', 'webhook.secret_rotated');
    await page.click('#events-form button[type="submit"]');
    await page.locator('#events-table', { hasText: 'CONSOLE cs_' }).waitFor();
  });

  it('shows the live usage of each rate limit', async () => {
    for (let i = 0; i < 3; i++) expect((await v1(tenant.secret.key)).status).toBe(200);
    await page.click('.tab[data-tab="limits"]');
    await page.locator('#limits-table', { hasText: tenant.secret.keyPrefix }).waitFor();
    const text = (await page.textContent('#limits-table')) ?? '';
    expect(text).toContain('Writes (whole organization)');
    expect(text).toMatch(/Requests\s*[1-9]\d* \/ \d+/);
    await page.screenshot({ path: join(SHOTS, 'console-limits.png'), fullPage: true });
  });

  it('finds a failed request in the request logs by its request id', async () => {
    const failed = await v1(tenant.secret.key, '/v1/contacts/ct_00000000000000000000000');
    expect(failed.status).toBe(404);
    const requestId = failed.headers.get('x-request-id') ?? '';
    await page.click('.tab[data-tab="logs"]');
    await page.fill('#logs-request-id', requestId);
    await eventually(async () => {
      await page.click('#logs-form button[type="submit"]');
      await page.locator('#logs-table', { hasText: requestId }).waitFor({ timeout: 500 });
    }, 10_000);
    await page.locator('#logs-table', { hasText: '404' }).waitFor();
    await page.locator('#logs-table', { hasText: 'NOT_FOUND' }).waitFor();
    // The same line by key, path prefix and status class; none from a time after it.
    await page.fill('#logs-request-id', '');
    await page.selectOption('#logs-key', tenant.secret.id);
    await page.fill('#logs-path', '/v1/contacts/');
    await page.selectOption('#logs-status', '4xx');
    await page.click('#logs-form button[type="submit"]');
    await page.locator('#logs-table', { hasText: requestId }).waitFor();
    await page.fill('#logs-since', '2099-01-01T00:00');
    await page.click('#logs-form button[type="submit"]');
    await page.locator('#logs-table', { hasText: 'Nothing yet.' }).waitFor();
    await page.fill('#logs-since', '');
    await page.click('#logs-form button[type="submit"]');
    await page.screenshot({ path: join(SHOTS, 'console-logs.png'), fullPage: true });
  });

  it('shows the email log of the last 7 days, with statuses, and what one email said', async () => {
    const sent = await seedEmail(tenant.org.id, {
      subject: 'Your visit on Friday',
      text: 'See you on Friday.',
    });
    await seedEmail(tenant.org.id, {
      status: 'BOUNCED',
      reason: '550 5.1.1 No such user',
      toAddress: 'gone@example.com',
    });
    await seedEmail(tenant.org.id, { subject: 'Too old', createdAt: new Date(Date.now() - 8 * 86_400_000) });
    await page.click('.tab[data-tab="emails"]');
    await page.locator('#emails-table', { hasText: 'gone@example.com' }).waitFor();
    const text = (await page.textContent('#emails-table')) ?? '';
    expect(text).toContain('550 5.1.1 No such user');
    expect(text).toContain('Your visit on Friday');
    expect(text).not.toContain('Too old');
    expect(await page.locator('#emails-table .badge.bounced').count()).toBe(1);
    await page.selectOption('#emails-status', 'BOUNCED');
    await page.click('#emails-form button[type="submit"]');
    await page.locator('#emails-count', { hasText: '1 in the last 7 days' }).waitFor();
    await page.selectOption('#emails-status', '');
    await page.click('#emails-form button[type="submit"]');
    await page.locator('#emails-table button[data-email="' + sent.id + '"]').click();
    await page.locator('#email-text', { hasText: 'See you on Friday.' }).waitFor();
    await page.locator('#email-meta', { hasText: `<${sent.id}@` }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'console-emails.png'), fullPage: true });
  });

  it("shows another organization's console none of it", async () => {
    const theirs = await signedIn(other.org.id);
    await theirs.page.locator('#org-name', { hasText: other.org.name }).waitFor();
    const keys = (await theirs.page.textContent('#keys-table')) ?? '';
    expect(keys).not.toContain('Browser key');
    await theirs.page.click('.tab[data-tab="webhooks"]');
    await theirs.page.locator('#webhooks-table', { hasText: 'Nothing yet.' }).waitFor();
    await theirs.page.click('.tab[data-tab="logs"]');
    await theirs.page.click('#logs-form button[type="submit"]');
    expect(await theirs.page.textContent('#logs-table')).not.toContain(tenant.secret.keyPrefix);
    await theirs.ctx.close();
  });

  it('refuses a request without the session cookie or from another origin', async () => {
    expect((await fetch(`${base}/console/api/keys`)).status).toBe(401);
    const csrf = await page.evaluate(
      async () => (await (await fetch('/console/api/session')).json()).csrfToken,
    );
    const forged = await context.request.post(`${base}/console/api/keys`, {
      data: { type: 'secret' },
      headers: { origin: 'https://evil.example', 'x-csrf-token': csrf },
    });
    expect(forged.status()).toBe(403);
    // The same request from the page itself (same origin, token) is accepted.
    const own = await page.evaluate(async (token) => {
      const response = await fetch('/console/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': token },
        body: JSON.stringify({ type: 'publishable' }),
      });
      return response.status;
    }, csrf);
    expect(own).toBe(201);
  });

  it('fits a phone screen', async () => {
    const phone = await signedIn(tenant.org.id, { width: 390, height: 844 });
    const overflow = await phone.page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.page.screenshot({ path: join(SHOTS, 'console-phone.png') });
    await phone.ctx.close();
  });
});
