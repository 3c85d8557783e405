import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { clientCredentialsOf } from '../../platform/auth/client-credentials.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ref } from '../../platform/http/schemas.ts';
import { registerOAuth } from './oauth.protocol.ts';
import { OAuthTokenSchema, oauthErrors, TokenRequestSchema } from './oauth.schema.ts';
import { issueToken } from './oauth.service.ts';

/**
 * The client is a secret or read-only secret key, admitted by the one auth hook as any key is (its
 * organization, type, state, expiry, the IP block and its rate limits); no scope of its own.
 */
const CLIENT = {
  auth: { scope: null, keyTypes: SECRET_KEYS, write: false, clientCredentials: true },
  // Not a resource creation: RFC 6749 clients send no Idempotency-Key, and a replay would store a key.
  idempotency: false,
  cache: 'no-store',
} as const;

/** POST /oauth/token: OAuth 2.0 client credentials for RESO clients (docs/reso.md, decision 0262). */
export const oauthRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app) => {
  registerOAuth(app);

  app.post(
    '/oauth/token',
    {
      config: CLIENT,
      schema: {
        operationId: 'oauth.token.issue',
        summary: 'An OAuth 2.0 access token (client credentials)',
        description:
          'OAuth 2.0 client credentials grant (RFC 6749 §4.4), for RESO Web API clients configured for OAuth2. ' +
          "`application/x-www-form-urlencoded` with `grant_type=client_credentials`; the client is an API key: the key's " +
          'id (`key_…`) as `client_id` and the secret or read-only secret key as `client_secret`, in HTTP Basic or in ' +
          'the form (not both). The access token is the key itself, with its scopes, expiry and limits: send it as ' +
          '`Authorization: Bearer <token>` to `/v1/reso` (and the MCP endpoint), or in X-API-Key anywhere in /v1; ' +
          'revoking the key revokes it. `scope` may only name scopes the key holds. Failures are OAuth error answers ' +
          '(`{"error", "error_description"}`): a missing, unknown, revoked or expired key is a 401 `invalid_client`, ' +
          'and failed attempts count toward the IP block as invalid keys do. Answers carry `Cache-Control: no-store`. ' +
          'Details: docs/reso.md.',
        tags: ['OAuth'],
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequestSchema,
        response: { 200: ref(OAuthTokenSchema), ...oauthErrors([400, 401, 413, 429, 500, 503]) },
      },
    },
    async (request) => issueToken(callerOf(request), clientCredentialsOf(request).key, request.body),
  );
};
