import { fileURLToPath } from 'node:url';
import { Type } from '@fastify/type-provider-typebox';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { registerStaticPages } from '../../platform/http/static-pages.ts';

/** The visitor's page (web/visit/): HTML, CSS and a module that calls /v1/booking/manage/{token}. */
const VISIT_WEB_DIR = fileURLToPath(new URL('../../../web/visit/', import.meta.url));

/**
 * The page only talks to its own origin; the link is a credential, so no referrer leaves it, and it is
 * never framed. Revalidated every time (ETag / Last-Modified make that a 304).
 */
const PAGE_HEADERS = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
};

const TokenParamsSchema = Type.Object(
  { token: Type.String({ maxLength: 200 }) },
  { additionalProperties: false },
);

/** GET /visits/{token}: the page of a visit's manage link (the booking answer's `manageUrl`). */
export const bookingPageRoutes: FeaturePlugin = async (app) => {
  const headers = await registerStaticPages(app, {
    dir: VISIT_WEB_DIR,
    path: '/visits',
    assets: '/visits/assets/',
    headers: PAGE_HEADERS,
  });
  app.get(
    '/visits/:token',
    { config: { public: true }, schema: { hide: true, params: TokenParamsSchema } },
    async (_request, reply) => {
      headers(reply);
      return reply.sendFile('index.html', VISIT_WEB_DIR);
    },
  );
};
