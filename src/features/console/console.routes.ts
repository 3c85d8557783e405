import { originOf } from '../../platform/http/origin.ts';
import { fileURLToPath } from 'node:url';
import { CONSOLE_COOKIE, CONSOLE_SESSION_TTL_MS } from '../../platform/auth/console-sessions.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import { registerStaticPages } from '../../platform/http/static-pages.ts';
import {
  ConsoleLinkResponseSchema,
  ConsoleSessionInfoSchema,
  RevokedSessionsResponseSchema,
  StartQuerySchema,
} from './console.schema.ts';
import * as consoleService from './console.service.ts';

export const CONSOLE_WEB_DIR = fileURLToPath(new URL('../../../web/console/', import.meta.url));
/** No inline script or style, nothing from elsewhere, never cached or framed (decision 0211). */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const PAGE = { config: { public: true }, schema: { hide: true } } as const;

/**
 * The developer console (issue 22): its pages under /console/, the one-time link that opens a
 * session, the session's own API, and the operator's links and revocation under /admin/v1.
 */
export const consoleRoutes: FeaturePlugin = async (app, { db, consoleSessions, config }) => {
  const deps: consoleService.ConsoleDeps = { db, consoleSessions, publicUrl: config.publicUrl };
  const pageHeaders = await registerStaticPages(app, {
    dir: CONSOLE_WEB_DIR,
    path: '/console',
    assets: '/console/assets/',
    headers: PAGE_HEADERS,
  });

  // Opening a link: used once, it becomes an 8-hour session cookie, and the page without the token.
  app.get(
    '/console/start',
    { ...PAGE, schema: { hide: true, querystring: StartQuerySchema } },
    async (request, reply) => {
      pageHeaders(reply);
      const opened = request.query.token ? await consoleSessions.openLink(request.query.token) : null;
      if (!opened) return reply.code(410).sendFile('link-invalid.html', CONSOLE_WEB_DIR);
      const secure = request.protocol === 'https';
      reply.header(
        'set-cookie',
        `${CONSOLE_COOKIE}=${opened.token}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${CONSOLE_SESSION_TTL_MS / 1000}${secure ? '; Secure' : ''}`,
      );
      return reply.redirect('/console/', 303);
    },
  );

  app.get(
    '/console/api/session',
    {
      config: { console: { write: false } },
      schema: { hide: true, response: { 200: ConsoleSessionInfoSchema } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return consoleService.sessionInfo(deps, consoleService.consoleSessionOf(request));
    },
  );

  app.post(
    '/console/api/sign-out',
    { config: { console: { write: false } }, schema: { hide: true } },
    async (request, reply) => {
      await consoleSessions.revoke(consoleService.consoleSessionOf(request).id);
      reply.clearCookie(CONSOLE_COOKIE, { path: '/console', httpOnly: true, sameSite: 'strict' });
      return reply.code(204).send();
    },
  );

  app.post(
    '/admin/v1/organizations/:orgId/console-links',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.console.links.create',
        summary: "Mint a one-time link to the organization's developer console",
        description:
          'Admin bearer token. The link opens the console of this (live) organization, with its test mode, ' +
          'for 8 hours in that browser; it is valid 15 minutes and works once. It points at PUBLIC_URL when set, ' +
          'else at the address this request came to. 404 for an unknown organization, 400 for a test twin.',
        tags: ['Admin'],
        params: OrganizationIdParamsSchema,
        response: { 201: ConsoleLinkResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await consoleService.mintConsoleLink(
          deps,
          request.params.orgId,
          originOf(request, config.publicUrl),
        ),
      }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/console-sessions',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.console.sessions.revoke',
        summary: 'End every live console session of the organization',
        description: 'Admin bearer token. The next console request of those browsers answers 401.',
        tags: ['Admin'],
        params: OrganizationIdParamsSchema,
        response: { 200: RevokedSessionsResponseSchema },
      },
    },
    async (request) => {
      await consoleService.requireOrganization(deps, request.params.orgId);
      return { data: { revoked: await consoleSessions.revokeAll(request.params.orgId) } };
    },
  );
};
