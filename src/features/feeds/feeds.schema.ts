// The feeds' settings (GET/POST/DELETE /v1/feeds/token) and the JSON feed's document.
import { Type, type Static } from '@fastify/type-provider-typebox';
import { DataOf, DateTime, Nullable, ref } from '../../platform/http/schemas.ts';

export const FeedSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({ description: 'The feed URLs answer (a token exists)' }),
    tokenPrefix: Nullable(
      Type.String({ description: 'The first characters of the token, to recognise the URLs given out' }),
    ),
    createdAt: Nullable(DateTime({ description: 'When the current token was made' })),
  },
  { $id: 'FeedSettings', additionalProperties: false },
);
export type FeedSettings = Static<typeof FeedSettingsSchema>;

export const FeedTokenSchema = Type.Object(
  {
    token: Type.String({ description: 'Shown only now: the URLs below carry it' }),
    urls: Type.Object(
      {
        kyero: Type.String({ format: 'uri', description: 'Kyero v3 XML' }),
        json: Type.String({ format: 'uri', description: 'JSON' }),
      },
      { additionalProperties: false },
    ),
    createdAt: DateTime(),
  },
  {
    $id: 'FeedToken',
    additionalProperties: false,
    examples: [
      {
        token: 'Hn1b0Qk3mV7yWq2Xc9Zr4Tj6Lp8Sd5Fa0Gh2Jk4Lm6N',
        urls: {
          kyero: 'https://api.example.com/feeds/Hn1b0Qk3mV7yWq2Xc9Zr4Tj6Lp8Sd5Fa0Gh2Jk4Lm6N/kyero.xml',
          json: 'https://api.example.com/feeds/Hn1b0Qk3mV7yWq2Xc9Zr4Tj6Lp8Sd5Fa0Gh2Jk4Lm6N/listings.json',
        },
        createdAt: '2026-11-27T08:30:00.000Z',
      },
    ],
  },
);

export const FeedParamsSchema = Type.Object(
  { token: Type.String({ maxLength: 100, description: 'The feed token (POST /v1/feeds/token)' }) },
  { additionalProperties: false },
);

export const FeedPhotoParamsSchema = Type.Object(
  {
    token: Type.String({ maxLength: 100, description: 'The feed token (POST /v1/feeds/token)' }),
    listingId: Type.String({
      maxLength: 40,
      description: 'The listing (prop_…)',
      examples: ['prop_4kQ9mW2xT7bN1cV5zR8yLp'],
    }),
    file: Type.String({
      pattern: '^ph_[0-9A-Za-z]{22}\\.(jpg|png|gif)$',
      description: "The photo's id and the ending of its probed media type",
      examples: ['ph_7Hc2Lq9ZxW4mN8bV1tR5sK.jpg'],
    }),
  },
  { additionalProperties: false },
);

/** The JSON feed: the organization, then every published listing in the portal's view with its texts. */
export const JsonFeedSchema = Type.Object(
  {
    organization: Type.Object(
      {
        id: Type.String(),
        name: Type.String(),
        defaultLanguage: Type.String(),
        languages: Type.Array(Type.String()),
      },
      { additionalProperties: false },
    ),
    generatedAt: DateTime(),
    listings: Type.Array(
      Type.Object(
        {
          property: Type.Unsafe({ $ref: 'PortalProperty#' }),
          texts: Type.Array(
            Type.Object(
              { language: Type.String(), title: Type.String(), description: Type.String() },
              { additionalProperties: false },
            ),
            {
              description:
                "Title and description in each language the listing has, the organization's default first",
            },
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'JsonFeed', additionalProperties: false },
);

export const FeedSettingsResponseSchema = DataOf(ref(FeedSettingsSchema));
export const FeedTokenResponseSchema = DataOf(ref(FeedTokenSchema));

export const feedsSchemas = [FeedSettingsSchema, FeedTokenSchema, JsonFeedSchema];
