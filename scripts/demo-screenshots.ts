/**
 * `npm run demo:screenshots`: starts the service on an in-memory database with the demo agency,
 * opens /demo/ in Chromium (offline: photos fall back to the local placeholder) and writes
 * docs/demo-desktop.png (1280 wide), docs/demo-detail.png and docs/demo-phone.png (390 wide).
 * Run it after changing the page; the test suite never rewrites docs/.
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { seedDemo } from '../src/features/admin/admin.service.ts';
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
    await mobile.locator('#results-summary').evaluate((node) => node.scrollIntoView({ block: 'start', behavior: 'instant' }));
    await mobile.screenshot({ path: `${DOCS}demo-phone.png` });
    await phone.close();
    console.log(`wrote ${DOCS}demo-desktop.png, demo-detail.png and demo-phone.png`);
  } finally {
    await browser.close();
    await app.close();
    await db.close();
  }
}

await main();
