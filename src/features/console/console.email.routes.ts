import { Type } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { StringEnum } from '../../platform/http/schemas.ts';
import { getEmail, listEmails, ListEmailsQuerySchema } from '../email/index.ts';
import { CONSOLE, IdParams, ModeQuery } from './console.schema.ts';
import * as consoleService from './console.service.ts';

/** How far back the console's email log reaches. */
export const CONSOLE_EMAIL_DAYS = 7;
const DAY_MS = 86_400_000;

const { createdAfter: _after, createdBefore: _before, ...filters } = ListEmailsQuerySchema.properties;
const EmailLogQuery = Type.Object(
  { ...filters, mode: Type.Optional(StringEnum(['live', 'test'] as const)) },
  { additionalProperties: false },
);

/**
 * The console's email log (issue 41): the organization's emails of the last 7 days in live or test
 * mode, newest first, with their status and why one was skipped, failed or bounced; one email with
 * what it said. The v1 log's service, run as the console caller.
 */
export const consoleEmailRoutes: FeaturePlugin = async (app, { db, consoleSessions, config }) => {
  const deps: consoleService.ConsoleDeps = { db, consoleSessions, publicUrl: config.publicUrl };

  app.get(
    '/console/api/emails',
    { config: CONSOLE, schema: { hide: true, querystring: EmailLogQuery } },
    async (request) => {
      const { mode, ...query } = request.query;
      const caller = await consoleService.consoleCallerIn(deps, callerOf(request), mode ?? 'live');
      const createdAfter = new Date(Date.now() - CONSOLE_EMAIL_DAYS * DAY_MS).toISOString();
      return listEmails(db, caller, { ...query, createdAfter }, config.emailFrom);
    },
  );

  app.get(
    '/console/api/emails/:id',
    { config: CONSOLE, schema: { hide: true, params: IdParams, querystring: ModeQuery } },
    async (request) => {
      const caller = await consoleService.consoleCallerIn(
        deps,
        callerOf(request),
        request.query.mode ?? 'live',
      );
      return { data: await getEmail(db, caller, request.params.id, config.emailFrom) };
    },
  );
};
