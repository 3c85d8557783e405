// OAuth 2.0 client credentials (RFC 6749 §4.4): the token endpoint RESO clients expect, whose access
// token is the API key itself (docs/reso.md, decision 0262).
import { defineFeature } from '../../platform/features/manifest.ts';
import { oauthRoutes } from './oauth.routes.ts';
import { OAuthErrorSchema, OAuthTokenSchema } from './oauth.schema.ts';

/** The OAuth feature's manifest (src/features.ts lists it). */
export const oauthFeature = defineFeature({
  name: 'oauth',
  tags: [
    {
      name: 'OAuth',
      description: 'OAuth 2.0 client credentials: an API key as the access token of RESO clients',
    },
  ],
  schemas: [OAuthTokenSchema, OAuthErrorSchema],
  routes: [oauthRoutes],
});
