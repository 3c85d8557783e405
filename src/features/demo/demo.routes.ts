import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { Type } from '@fastify/type-provider-typebox';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import type { FastifyReply } from 'fastify';

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

const FileParamsSchema = Type.Object({ file: Type.String({ maxLength: 100 }) });
/** Plain file names only (web/ has no folders): anything else is a 404 before the disk is asked. */
const FILE_NAME = /^[a-z0-9-]+\.(js|css|svg)$/;

/**
 * The page is a reference integration: it must only do what any agency website can do (call the
 * public v1 API with a publishable key), so a Content-Security-Policy holds it to its own files plus
 * `fetch` to the API base URL the visitor types in, and photos from wherever the agency hosts them.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https: http:",
  'connect-src *',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function pageHeaders(reply: FastifyReply) {
  // Revalidate every time (ETag / Last-Modified make that a 304): an upgraded service never runs
  // yesterday's script against today's API.
  reply.header('cache-control', 'no-cache');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('referrer-policy', 'strict-origin-when-cross-origin');
}

const PAGE = { config: { public: true }, schema: { hide: true } } as const;

/**
 * GET /demo/ and its files from web/, and GET /demo/config.json (the seeded publishable key).
 * Files are served by @fastify/static's `sendFile` (ETag, Last-Modified, 304, content types, no
 * path traversal: the parameter admits only plain file names).
 */
export const demoRoutes: FeaturePlugin = async (app, { demoPortal: settings }) => {
  await app.register(fastifyStatic, {
    root: DEMO_WEB_DIR,
    serve: false,
    cacheControl: false,
    dotfiles: 'deny',
    // RFC 9239: JavaScript is text/javascript (the mime table still says application/javascript).
    setHeaders: (reply, path) => {
      if (path.endsWith('.js')) reply.header('content-type', 'text/javascript; charset=utf-8');
    },
  });

  app.get('/demo', PAGE, async (_request, reply) => reply.redirect('/demo/', 301));

  app.get('/demo/', PAGE, async (_request, reply) => {
    pageHeaders(reply);
    return reply.sendFile('index.html');
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

  app.get(
    '/demo/:file',
    { config: { public: true }, schema: { hide: true, params: FileParamsSchema } },
    async (request, reply) => {
      if (!FILE_NAME.test(request.params.file)) return reply.callNotFound();
      pageHeaders(reply);
      return reply.sendFile(request.params.file);
    },
  );
};
