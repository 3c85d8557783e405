import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM_INSTALL_HINT, chromiumInstalled, chromiumPath } from './chromium.ts';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** Debian's Chromium (DESIGN.md: no browser download); .ci/run installs it when missing. */
export function launchChromium(): Promise<Browser> {
  if (!chromiumInstalled()) {
    // Only under CI=true: elsewhere vitest.config.ts leaves the browser files out.
    throw new Error(`no Chromium at ${chromiumPath()}: ${CHROMIUM_INSTALL_HINT}`);
  }
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

/**
 * A browser context that can reach only the given origins (the API and the page): everything else
 * (the demo's photo host, fonts, anything) is aborted, so the page is shown working offline and a
 * test never waits on the internet.
 */
export async function offlineContext(
  browser: Browser,
  allowedOrigins: string[],
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  const allowed = new Set(allowedOrigins.map((origin) => new URL(origin).origin));
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || allowed.has(url.origin)) return route.continue();
    return route.abort('internetdisconnected');
  });
  return context;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * A plain static file server for `dir` on 127.0.0.1 or localhost (port 0): how an agency would host
 * the page on its own website, on an origin that is not the API's.
 */
export async function serveStatic(
  dir: string,
  host = 'localhost',
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const file = normalize(join(dir, path.endsWith('/') ? `${path}index.html` : path));
    const type = TYPES[extname(file)];
    const found = file.startsWith(dir) && type ? await stat(file).catch(() => null) : null;
    if (!found?.isFile()) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, {
      'content-type': type ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
