import { originOf as publicOrigin } from '../../platform/http/origin.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fastifyCompress from '@fastify/compress';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fresh from 'fresh';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import {
  FeedParamsSchema,
  FeedPhotoParamsSchema,
  FeedSettingsResponseSchema,
  FeedTokenResponseSchema,
  JsonFeedSchema,
} from './feeds.schema.ts';
import {
  disableFeeds,
  feedPhotoTarget,
  feedStream,
  feedUrls,
  feedValidators,
  getFeedSettings,
  rotateFeedToken,
  type FeedFormat,
} from './feeds.service.ts';

const READ = { auth: { scope: 'listings:read', keyTypes: SECRET_KEYS, write: false } } as const;
const WRITE = {
  auth: { scope: 'listings:write', keyTypes: SECRET_KEYS, write: true, accessLevel: 3 },
} as const;
const TAGS = ['Listings'];
const GUIDE = 'Formats, fields and polling: docs/feeds.md.';
const CONTENT_TYPES: Record<FeedFormat, string> = {
  kyero: 'application/xml; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

const VALIDATOR_HEADERS = {
  ETag: {
    type: 'string',
    description:
      'Weak (`W/"…"`: the bytes differ with the content coding); changes with any change the portal can show. ' +
      'If-None-Match decides when sent.',
  },
  'Last-Modified': {
    type: 'string',
    description:
      'When the published stock last changed, in whole seconds; left out until that second is more than a ' +
      'second past (two changes in one second would share it), so If-Modified-Since does not miss a change.',
  },
  'Cache-Control': { type: 'string', description: '`no-cache`: revalidate (a 304 is cheap)' },
  Vary: { type: 'string', description: '`Accept-Encoding`: gzip or br when asked' },
};
const SECOND_MS = 1000;
const floorSecond = (time: number) => Math.floor(time / SECOND_MS) * SECOND_MS;

/**
 * Last-Modified, or null until the last change's second is more than a second past. HTTP dates hold
 * whole seconds: a client told a second still running would send it back as If-Modified-Since and miss
 * a second change within it (RFC 9110 8.8.2.2, a weak Last-Modified); the extra second covers a
 * transaction committing after the second of its write (decision 0254).
 */
function lastModifiedOf(changedAt: Date, now = Date.now()): Date | null {
  const second = floorSecond(changedAt.getTime());
  return second + 2 * SECOND_MS <= now ? new Date(second) : null;
}

/**
 * A conditional GET (RFC 9110 13.1): If-None-Match decides when present, else If-Modified-Since, and
 * that one only against a Last-Modified the answer gives. Either way, whatever the request's Cache-Control.
 */
function notModified(request: FastifyRequest, etag: string, lastModified: Date | null): boolean {
  const inm = request.headers['if-none-match'];
  if (inm !== undefined) return fresh({ 'if-none-match': inm }, { etag });
  const ims = Date.parse(request.headers['if-modified-since'] ?? '');
  return lastModified !== null && !Number.isNaN(ims) && lastModified.getTime() <= ims;
}

/** The organization's syndication feeds: their settings (secret keys) and the feeds themselves (a token URL). */
export const feedsRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, config }) => {
  const originOf = (request: FastifyRequest) => publicOrigin(request, config.publicUrl);
  // reply.compress for the feeds only (decision 0254): br or gzip as Accept-Encoding asks, streamed.
  await app.register(fastifyCompress, { global: false, encodings: ['br', 'gzip'] });

  app.get(
    '/v1/feeds',
    {
      config: READ,
      schema: {
        operationId: 'feeds.get',
        summary: "The organization's syndication feeds",
        description:
          'Secret or read-only secret key with `listings:read`. Whether the feed URLs answer, and the first ' +
          'characters of their token (the token itself is shown only when made). ' +
          GUIDE,
        tags: TAGS,
        response: { 200: FeedSettingsResponseSchema },
      },
    },
    async (request) => ({ data: await getFeedSettings(db, callerOf(request)) }),
  );

  app.post(
    '/v1/feeds/token',
    {
      config: { ...WRITE, optionalBody: true },
      schema: {
        operationId: 'feeds.token.create',
        summary: 'Make (or replace) the feed token',
        description:
          'Secret key with `listings:write` at access level 3. A new unguessable token for the feed URLs, ' +
          'answered only now with the URLs to give to portals: the Kyero v3 XML feed and the JSON feed of ' +
          'the published listings. The previous token stops working at once (rotate it when a URL leaked). ' +
          GUIDE,
        tags: TAGS,
        response: { 201: FeedTokenResponseSchema },
      },
    },
    async (request, reply) => {
      const { token, createdAt } = await rotateFeedToken(db, callerOf(request));
      return reply.code(201).send({ data: { token, urls: feedUrls(originOf(request), token), createdAt } });
    },
  );

  app.delete(
    '/v1/feeds/token',
    {
      config: WRITE,
      schema: {
        operationId: 'feeds.token.delete',
        summary: 'Turn the feeds off',
        description:
          'Secret key with `listings:write` at access level 3. The feed URLs answer 404 until a new token is made.',
        tags: TAGS,
        response: { 200: FeedSettingsResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      await disableFeeds(db, caller);
      return { data: await getFeedSettings(db, caller) };
    },
  );

  async function serveFeed(format: FeedFormat, request: FastifyRequest, reply: FastifyReply) {
    const caller = callerOf(request);
    const { etag, changedAt } = await feedValidators(db, caller, format);
    const lastModified = lastModifiedOf(changedAt);
    reply.header('etag', etag).header('cache-control', 'no-cache').header('vary', 'Accept-Encoding');
    if (lastModified !== null) reply.header('last-modified', lastModified.toUTCString());
    if (notModified(request, etag, lastModified)) return reply.code(304).send();
    const { token } = request.params as { token: string };
    const feedBase = `${originOf(request)}/feeds/${encodeURIComponent(token)}`;
    return reply.type(CONTENT_TYPES[format]).compress(feedStream(db, caller, format, feedBase));
  }

  const feedResponses = (format: FeedFormat) => ({
    200: {
      description: format === 'kyero' ? 'The Kyero v3 XML feed' : 'The JSON feed',
      headers: VALIDATOR_HEADERS,
      content:
        format === 'kyero'
          ? {
              'application/xml': {
                schema: { type: 'string', description: 'Kyero v3.4 (Kyero import specification)' },
              },
            }
          : { 'application/json': { schema: ref(JsonFeedSchema) } },
    },
    304: { description: 'Not Modified: nothing the portal shows changed since', headers: VALIDATOR_HEADERS },
    404: ref(ErrorResponseSchema),
  });

  app.get(
    '/feeds/:token/kyero.xml',
    {
      config: { credential: { kind: 'feed', write: false } },
      schema: {
        operationId: 'feeds.kyero.get',
        summary: 'Kyero v3 XML feed of the published listings',
        description:
          'No key: the URL carries the token (POST /v1/feeds/token). Every listing the portal shows, as Kyero ' +
          "v3 `<property>` elements, streamed; the portal's view (address visibility applied to the " +
          'coordinates), every language Kyero knows in `<desc>`. Listings priced in a currency Kyero does not ' +
          'take (other than EUR, GBP, USD) are left out. Poll with If-None-Match or If-Modified-Since: 304 until ' +
          'the published stock changes. 404 for a wrong or replaced token. ' +
          GUIDE,
        tags: TAGS,
        params: FeedParamsSchema,
        response: feedResponses('kyero'),
      },
    },
    async (request, reply) => serveFeed('kyero', request, reply),
  );

  app.get(
    '/feeds/:token/listings.json',
    {
      config: { credential: { kind: 'feed', write: false } },
      schema: {
        operationId: 'feeds.json.get',
        summary: 'JSON feed of the published listings',
        description:
          'No key: the URL carries the token (POST /v1/feeds/token). The organization, then every listing the ' +
          "portal shows, as `{ property, texts }`: `property` in the portal's view (as GET /v1/properties, address visibility applied), `texts` title and " +
          "description in each of its languages, the organization's default first. Streamed; polled like the " +
          'Kyero feed (ETag, Last-Modified, 304). 404 for a wrong or replaced token. ' +
          GUIDE,
        tags: TAGS,
        params: FeedParamsSchema,
        response: feedResponses('json'),
      },
    },
    async (request, reply) => serveFeed('json', request, reply),
  );

  app.get(
    '/feeds/:token/photos/:listingId/:file',
    {
      config: { credential: { kind: 'feed', write: false } },
      schema: {
        operationId: 'feeds.photo.get',
        summary: "A Kyero feed photo's alias",
        description:
          'No key: the URL carries the feed token. The Kyero feed gives a photo whose address does not end in ' +
          '.jpg, .jpeg, .png or .gif (which Kyero requires) but answered image/jpeg, image/png or image/gif by this ' +
          "alias: a 302 to the photo's own address. Only for a photo of a listing the feed shows, with the ending " +
          'of its probed type; 404 otherwise (and for a wrong or replaced token). ' +
          GUIDE,
        tags: TAGS,
        params: FeedPhotoParamsSchema,
        response: {
          302: {
            description: "Found: the photo's own address is in Location",
            headers: {
              Location: { type: 'string', description: "The photo's address, as the listing gives it" },
            },
          },
          404: ref(ErrorResponseSchema),
        },
      },
    },
    async (request, reply) => {
      const { listingId, file } = request.params;
      const [photoId = '', ending = ''] = file.split('.');
      const url = await feedPhotoTarget(db, callerOf(request), listingId, { photoId, ending });
      // A plain 302, not cached by default (RFC 9111 4.2.2): a changed or withdrawn photo is followed at once.
      return reply.redirect(url, 302);
    },
  );
};
