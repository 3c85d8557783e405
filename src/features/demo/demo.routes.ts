import { fileURLToPath } from 'node:url';
import { Type } from '@fastify/type-provider-typebox';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { registerStaticPages } from '../../platform/http/static-pages.ts';

/** The static demo portal page (HTML, CSS, ES modules), served at the fixed path /demo/. */
export const DEMO_WEB_DIR = fileURLToPath(new URL('../../../web/', import.meta.url));

/**
 * What the served page is told at start (GET /demo/config.json). Mutable on purpose: server.ts
 * seeds the demo agency after the app is built (the seed uses the app's key verifier), then puts
 * the new publishable key here. A publishable key is public by design; a secret key never goes here.
 */
export interface DemoPortalSettings {
  publishableKey: string | null;
}

const DemoConfigSchema = Type.Object(
  {
    publishableKey: Type.Union([Type.String(), Type.Null()], {
      description: 'The demo agency seeded at this start (DEMO_SEED), else null: the page asks for a key',
    }),
    apiBaseUrl: Type.String({ description: 'Empty: the API is on the origin that served the page' }),
  },
  { additionalProperties: false },
);

/**
 * The page is a reference integration: it must only do what any agency website can do (call the
 * public v1 API with a publishable key), so a Content-Security-Policy holds it to its own files plus
 * `fetch` to the API base URL the visitor types in, and photos from wherever the agency hosts them.
 * Revalidated every time (ETag / Last-Modified make that a 304): an upgraded service never runs
 * yesterday's script against today's API.
 */
const PAGE_HEADERS = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: https: http:",
    'connect-src *',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'strict-origin-when-cross-origin',
};

/** GET /demo/ and its files from web/, and GET /demo/config.json (the seeded publishable key). */
export const demoRoutes: FeaturePlugin = async (app, { demoPortal: settings }) => {
  await registerStaticPages(app, {
    dir: DEMO_WEB_DIR,
    path: '/demo',
    assets: '/demo/',
    headers: PAGE_HEADERS,
  });

  app.get(
    '/demo/config.json',
    { config: { public: true }, schema: { hide: true, response: { 200: DemoConfigSchema } } },
    async (_request, reply) => {
      // The key changes with every seeded start: never cached.
      reply.header('cache-control', 'no-store');
      return { publishableKey: settings.publishableKey, apiBaseUrl: '' };
    },
  );
};
