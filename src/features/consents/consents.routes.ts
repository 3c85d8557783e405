import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import {
  ConsentChannelParamsSchema,
  ContactConsentsParamsSchema,
  ContactConsentsResponseSchema,
  PutConsentBodySchema,
} from './consents.schema.ts';
import * as consents from './consents.service.ts';

const TAGS = ['Contacts'];

/** A contact's consent per channel: `PUT /v1/contacts/{id}/consents/{channel}` and `GET .../consents`. */
export const consentsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.put(
    '/v1/contacts/:id/consents/:channel',
    {
      config: { auth: { scope: 'contacts:write', keyTypes: ['secret'], write: true, accessLevel: 3 } },
      schema: {
        operationId: 'contacts.consents.set',
        summary: "State a contact's consent on a channel",
        description:
          'Secret key with `contacts:write`, access level 3. Records `{status, source}` for the channel ' +
          '(MESSAGING, EMAIL, PHONE) in the consent history; `contact.consent_changed` when the status changes ' +
          '(restating the same status adds history only). MESSAGING REVOKED sets the contact `optedOut` (sending ' +
          "answers 409 BLOCKED), GRANTED clears it. Answers the contact's consents. Idempotent in effect: " +
          'repeating it leaves the same current state. 404 for a contact of another organization.',
        tags: TAGS,
        params: ConsentChannelParamsSchema,
        body: PutConsentBodySchema,
        response: { 200: ContactConsentsResponseSchema },
      },
    },
    async (request) => ({
      data: await consents.setContactConsent(
        db,
        callerOf(request),
        request.params.id,
        request.params.channel,
        request.body,
      ),
    }),
  );

  app.get(
    '/v1/contacts/:id/consents',
    {
      config: { auth: { scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false } },
      schema: {
        operationId: 'contacts.consents.get',
        summary: "A contact's consents",
        description:
          '`current`: the newest statement per channel (null when never stated); `history`: every statement, ' +
          'newest first, at most 100. 404 for a contact of another organization.',
        tags: TAGS,
        params: ContactConsentsParamsSchema,
        response: { 200: ContactConsentsResponseSchema },
      },
    },
    async (request) => ({
      data: await consents.getContactConsents(db, callerOf(request), request.params.id),
    }),
  );
};
