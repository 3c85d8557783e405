/**
 * The built TypeScript client in a real browser (Chromium): its ESM files served from another
 * origin than the API, as a website would load them. The publishable key crosses CORS (a POST with
 * the generated Idempotency-Key included), a secret key is refused with SECRET_KEY_IN_BROWSER, and
 * verifyWebhook runs on the browser's WebCrypto.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as ClientModule from '../../clients/typescript/src/index.ts';
import { launchChromium, offlineContext, serveStatic } from '../helpers/browser.ts';
import { createProperty, createTenant, type Tenant } from '../helpers/factories.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { buildClientPackage, clientFor, listen } from '../client/support.ts';

let app: FastifyInstance;
let apiOrigin: string;
let tenant: Tenant;
let site: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), 'agency-client-browser-'));

beforeAll(async () => {
  app = await buildTestApp();
  apiOrigin = await listen(app);
  tenant = await createTenant(app);
  await buildClientPackage(dir);
  // The page loads the built package as a website would; the tests use what it put on window.
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>client</title><script type="module">' +
      "import * as client from './dist/index.js'; window.agencyClient = client;</script>",
  );
  site = await serveStatic(dir);
  browser = await launchChromium();
  const context = await offlineContext(browser, [apiOrigin, site.url]);
  page = await context.newPage();
  await page.goto(`${site.url}/index.html`);
  await page.waitForFunction(() => 'agencyClient' in window);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

it('lists properties and captures a lead with the publishable key, across origins', async () => {
  const property = await createProperty(app, tenant.org.id, { title: 'Ático con vistas' });
  const result = await page.evaluate(
    async ({ baseUrl, apiKey }) => {
      const { createClient } = (window as unknown as { agencyClient: typeof ClientModule }).agencyClient;
      const client = createClient({ apiKey, baseUrl });
      const titles: string[] = [];
      for await (const item of client.properties.list()) titles.push(item.title);
      const lead = await client.leads.create({ firstName: 'Nerea', phone: '+34 644 555 666' });
      return {
        titles,
        success: lead.data.success,
        idempotencyKey: lead.lastResponse.idempotencyKey,
        remaining: lead.lastResponse.rateLimit?.remaining,
      };
    },
    { baseUrl: apiOrigin, apiKey: tenant.publishable.key },
  );
  expect(result.titles).toEqual([property.title]);
  expect(result.success).toBe(true);
  expect(result.idempotencyKey).toMatch(/^client-[0-9a-f]{32}$/);
  expect(result.remaining).toBeGreaterThan(0);
  const contacts = await clientFor(apiOrigin, tenant.secret.key).contacts.list({ q: '644555666' });
  expect(contacts.data.map((contact) => contact.firstName)).toEqual(['Nerea']);
});

it('gets SECRET_KEY_IN_BROWSER as an ApiError for a secret key', async () => {
  const error = await page.evaluate(
    async ({ baseUrl, apiKey }) => {
      const { ApiError, createClient } = (window as unknown as { agencyClient: typeof ClientModule })
        .agencyClient;
      try {
        await createClient({ apiKey, baseUrl }).properties.list();
        return null;
      } catch (caught) {
        return caught instanceof ApiError ? { status: caught.status, code: caught.code } : String(caught);
      }
    },
    { baseUrl: apiOrigin, apiKey: tenant.secret.key },
  );
  expect(error).toEqual({ status: 403, code: 'SECRET_KEY_IN_BROWSER' });
});

it('verifies a webhook signature with the browser WebCrypto, and refuses a tampered body', async () => {
  const secret = 'whsec_YnJvd3NlciB0ZXN0IHNlY3JldCBvZiAzMiBieXRlcyEh';
  const body = JSON.stringify({ id: 'evt_browser', type: 'webhook.test', data: {} });
  const t = Math.floor(Date.now() / 1000);
  const header = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  const outcome = await page.evaluate(
    async ({ body, header, secret }) => {
      const { verifyWebhook } = (window as unknown as { agencyClient: typeof ClientModule }).agencyClient;
      const event = await verifyWebhook(body, header, secret);
      const refused = await verifyWebhook(body.replace('evt_', 'evt_x'), header, secret).catch(
        (error: { reason: string }) => error.reason,
      );
      return { id: event.id, refused };
    },
    { body, header, secret },
  );
  expect(outcome).toEqual({ id: 'evt_browser', refused: 'BAD_SIGNATURE' });
});
