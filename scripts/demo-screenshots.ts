/**
 * `npm run demo:screenshots`: starts the service on an in-memory database with the demo agency,
 * opens /demo/ in Chromium (offline: photos fall back to the local placeholder) and writes
 * docs/demo-desktop.png (1280 wide), demo-detail.png, demo-finder.png, demo-booking.png and
 * docs/demo-phone.png (390 wide).
 * Run it after changing the page; the test suite never rewrites docs/.
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { seedDemo } from '../src/features/demo/index.ts';
import type { DemoPortalSettings } from '../src/features/demo/demo.routes.ts';
import { launchChromium, offlineContext } from '../test/helpers/browser.ts';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));

async function ready(page: Page, url: string) {
  await page.goto(url);
  await page.locator('#results .card').first().waitFor();
  await page.locator('#calendar .day.free').first().waitFor();
  // Let the placeholder images replace the unreachable photos before the shot.
  await page.waitForLoadState('networkidle');
}

async function main() {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    ADMIN_TOKEN: 'screenshots-admin-token',
  });
  const db = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://' });
  await db.migrate();
  const demoPortal: DemoPortalSettings = { publishableKey: null };
  const app = await buildApp(config, { db, demoPortal });
  demoPortal.publishableKey = (await seedDemo({ db, verifier: app.keyVerifier })).publishableKey;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  const browser = await launchChromium();
  try {
    const desktop = await offlineContext(browser, [origin], { viewport: { width: 1280, height: 1000 } });
    const page = await desktop.newPage();
    await ready(page, `${origin}/demo/`);
    await page.screenshot({ path: `${DOCS}demo-desktop.png` });

    await page.locator('#results .card-link').first().click();
    await page.locator('#property-dialog .facts-list').waitFor();
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: `${DOCS}demo-detail.png` });
    await page.keyboard.press('Escape');

    // The finder's answer with its score breakdown.
    const finder = page.locator('#finder-form');
    await finder.getByLabel('Buy or rent').selectOption('SALE');
    await finder.getByRole('button', { name: 'Next' }).click();
    await finder.getByLabel('City').fill('Málaga');
    await finder.getByRole('button', { name: 'Next' }).click();
    await finder.getByLabel('Budget up to').fill('400000');
    await finder.getByLabel('Bedrooms, at least').fill('2');
    await finder.getByRole('button', { name: 'Next' }).click();
    await finder.getByLabel('Terrace').check();
    await finder.getByRole('button', { name: 'Next' }).click();
    await finder.getByLabel('First name').fill('Lucía');
    await finder.getByLabel('Phone').fill('612 345 678');
    await finder.getByRole('button', { name: 'Show my matches' }).click();
    await page.locator('#finder-results .match').first().waitFor();
    await page.waitForLoadState('networkidle');
    // The wizard and the first matches (twelve would make a very long picture).
    const box = await page.locator('#finder').evaluate((node) => {
      const rect = node.getBoundingClientRect();
      return {
        x: rect.x + window.scrollX,
        y: rect.y + window.scrollY,
        width: rect.width,
        height: rect.height,
      };
    });
    await page.screenshot({
      path: `${DOCS}demo-finder.png`,
      fullPage: true,
      clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 1250) },
    });

    // The booking calendar with a day and a time picked.
    await page.locator('#calendar .day.free').first().click();
    await page.locator('#slots .slot').nth(2).click();
    await page.locator('#booking').screenshot({ path: `${DOCS}demo-booking.png` });
    await desktop.close();

    const phone = await offlineContext(browser, [origin], {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const mobile = await phone.newPage();
    await ready(mobile, `${origin}/demo/`);
    // On a phone the filters fill the first screen: show the listings below them.
    await mobile
      .locator('#results-summary')
      .evaluate((node) => node.scrollIntoView({ block: 'start', behavior: 'instant' }));
    await mobile.screenshot({ path: `${DOCS}demo-phone.png` });
    await phone.close();
    console.log(`wrote ${DOCS}demo-{desktop,detail,finder,booking,phone}.png`);
  } finally {
    await browser.close();
    await app.close();
    await db.close();
  }
}

await main();
