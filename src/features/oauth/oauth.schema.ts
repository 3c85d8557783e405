// The token endpoint's form, its token and its failures, as RFC 6749 names them (snake_case).
import { Type, type Static } from '@fastify/type-provider-typebox';
import { EXAMPLE_KEY } from '../../platform/http/openapi-examples.ts';
import { ref } from '../../platform/http/schemas.ts';

const EXAMPLE_KEY_ID = 'key_0VhJ3kQ2Zt8mX1pR4sT6uE';
const EXAMPLE_SECRET = `service_sk_live_${EXAMPLE_KEY}`;

/**
 * The form of a client-credentials grant (RFC 6749 §4.4.2). Other parameters are ignored, as §3.2
 * requires; each may appear once.
 */
export const TokenRequestSchema = Type.Object(
  {
    grant_type: Type.String({
      maxLength: 100,
      description: '`client_credentials`, the only grant this server issues',
    }),
    client_id: Type.Optional(
      Type.String({
        maxLength: 200,
        description: "The key's id (`key_…`), when the credentials are in the form rather than HTTP Basic",
      }),
    ),
    client_secret: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'The secret or read-only secret key, when the credentials are in the form',
      }),
    ),
    scope: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          "Space-separated scopes the client needs: each must be one of the key's (else `invalid_scope`). The " +
          "token is the key, so it always carries all of the key's scopes (the answer's `scope`)",
      }),
    ),
  },
  {
    additionalProperties: true,
    examples: [
      {
        grant_type: 'client_credentials',
        client_id: EXAMPLE_KEY_ID,
        client_secret: EXAMPLE_SECRET,
        scope: 'listings:read',
      },
    ],
  },
);
export type TokenRequest = Static<typeof TokenRequestSchema>;

export const OAuthTokenSchema = Type.Object(
  {
    access_token: Type.String({
      description:
        'The secret key itself (decision 0262): send it as `Authorization: Bearer <token>` on the RESO routes ' +
        'and the MCP endpoint, or in X-API-Key anywhere in /v1',
    }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "Seconds until the key's `expiresAt`; absent for a key that does not expire",
      }),
    ),
    scope: Type.String({ description: "The key's scopes, space-separated: what the token may do" }),
  },
  {
    $id: 'OAuthToken',
    additionalProperties: false,
    description: 'An OAuth 2.0 access token answer (RFC 6749 §5.1)',
    examples: [
      {
        access_token: EXAMPLE_SECRET,
        token_type: 'Bearer',
        scope: 'contacts:read deals:read listings:read',
      },
    ],
  },
);
export type OAuthToken = Static<typeof OAuthTokenSchema>;

export const OAuthErrorSchema = Type.Object(
  {
    error: Type.String({
      description:
        'RFC 6749 §5.2: `invalid_request` (a parameter missing, repeated or malformed, or a body that is not a ' +
        'form), `invalid_client` (401: no credentials, an unknown, revoked or expired key, or a client_id that is ' +
        'not its id), `unauthorized_client` (a publishable key, a suspended key, an inactive organization), ' +
        "`unsupported_grant_type`, `invalid_scope`; otherwise the service's code in lower case (`rate_limited`)",
      examples: ['invalid_client'],
    }),
    error_description: Type.String({
      description: 'What went wrong, in words (ASCII, as RFC 6749 requires)',
      examples: ['Invalid API key'],
    }),
  },
  {
    $id: 'OAuthError',
    additionalProperties: false,
    description: 'An OAuth 2.0 error answer (RFC 6749 §5.2); the request id is in X-Request-Id',
    examples: [{ error: 'invalid_client', error_description: 'Invalid API key' }],
  },
);
export type OAuthError = Static<typeof OAuthErrorSchema>;

/** The failures of the token endpoint, each in OAuth's format (the conventions add none over these). */
export function oauthErrors(statuses: readonly number[]) {
  return Object.fromEntries(statuses.map((status) => [status, ref(OAuthErrorSchema)]));
}
