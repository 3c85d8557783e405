import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import { PortalResponseSchema, UpdatePortalSettingsBodySchema } from './portal.schema.ts';
import * as portal from './portal.service.ts';

/**
 * The agency's branding for its website (GET /v1/portal) and the back office's settings (their paths
 * and rules differ, so each keeps its route; both read through the same service with their caller).
 */
export const portalRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, verifier }) => {
  app.get(
    '/v1/portal',
    {
      config: { auth: { scope: 'portal:read', keyTypes: ANY_KEY, write: false }, cache: 'portal' },
      schema: {
        operationId: 'portal.get',
        summary: "The agency's portal settings: name, logo, colors, contact, social links, defaults",
        description:
          "Any key type with `portal:read`. The branding for the agency's website: `agencyName` (the " +
          "organization's name until one is set), logo, colors, contact data, social links, default " +
          'currency and phone country. `updatedAt` is null until the settings are first changed; a test ' +
          "key reads the test twin's settings.",
        tags: ['Portal'],
        response: { 200: PortalResponseSchema },
      },
    },
    async (request) => ({ data: await portal.getPortal(db, callerOf(request)) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/portal-settings',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.portalSettings.get',
        summary: 'Get the portal settings',
        description:
          'Admin bearer token. The settings as GET /v1/portal shows them, for a live organization or a ' +
          'test twin. 404 for an unknown organization.',
        tags: ['Admin: portal'],
        params: OrganizationIdParamsSchema,
        response: { 200: PortalResponseSchema },
      },
    },
    async (request) => ({ data: await portal.getPortal(db, callerOf(request)) }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/portal-settings',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.portalSettings.update',
        summary: 'Change the portal settings',
        description:
          'Top-level fields replace; `colors`, `contact` and `socialLinks` merge member by member (null removes one). ' +
          'Default currency and phone country apply to the live organization and its test twin.',
        tags: ['Admin: portal'],
        params: OrganizationIdParamsSchema,
        body: UpdatePortalSettingsBodySchema,
        response: { 200: PortalResponseSchema },
      },
    },
    async (request) => {
      const data = await portal.updatePortalSettings(db, callerOf(request), request.body);
      // Callers carry the organization's defaults: this process's next request sees the new ones at once.
      verifier.invalidate();
      return { data };
    },
  );
};
