import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf, pageModeQuery, pageOnly, SYNC_PARAMETERS } from '../../platform/http/pagination.ts';
import { LANGUAGE_PATTERN, languagesOf, type ServedLanguages } from '../../platform/http/languages.ts';
import { ref, StringEnum } from '../../platform/http/schemas.ts';
import { defineTool, type McpCountDefinition, pageSummary } from '../../platform/mcp/mcp-tool.ts';
import {
  AdminPropertySchema,
  AMENITIES,
  PortalPropertyPageResponseSchema,
  PortalPropertyResponseSchema,
} from './properties.schema.ts';
import { amenityFlag, PortalListQuerySchema, type PortalListQuery } from './properties.portal.schema.ts';
import { getPortalProperty, searchPortalProperties } from './properties.portal.ts';
import { listListings } from './properties.listings.ts';
import { ListingListQuerySchema } from './properties.listings.schema.ts';

/** The language asked, when the organization serves it (the default otherwise, as on the portal). */
const servedIn = (organization: ServedLanguages, lang: string | undefined) =>
  lang !== undefined && languagesOf(organization).includes(lang) ? lang : undefined;

/** Left out of the tool's arguments: the URL's amenity flags (one list instead) and cursor mode. */
const LEFT_OUT = new Set<string>([...AMENITIES.map(amenityFlag), ...SYNC_PARAMETERS]);

/** The portal's query, with the `hasX` text flags of a URL replaced by one `amenities` list. */
const SearchPropertiesInputSchema = Type.Object(
  {
    ...Object.fromEntries(
      Object.entries(PortalListQuerySchema.properties).filter(([name]) => !LEFT_OUT.has(name)),
    ),
    amenities: Type.Optional(
      Type.Array(StringEnum(AMENITIES), {
        maxItems: AMENITIES.length,
        uniqueItems: true,
        description: 'Keeps only properties that have every one of these amenities',
      }),
    ),
  },
  { additionalProperties: false },
);
type SearchPropertiesInput = Omit<PortalListQuery, `has${string}` | (typeof SYNC_PARAMETERS)[number]> & {
  amenities?: string[];
};

/** The tool's arguments as the portal's query (amenities back to `hasX=1` flags). */
function portalQuery(args: SearchPropertiesInput): PortalListQuery {
  const { amenities, ...rest } = args;
  const query: PortalListQuery = { ...rest };
  for (const amenity of amenities ?? []) query[amenityFlag(amenity as (typeof AMENITIES)[number])] = '1';
  return query;
}

export const searchPropertiesTool = defineTool({
  name: 'search_properties',
  title: 'Search published properties',
  description:
    "Searches the agency's published listings, exactly as its public portal does (same filters, same fields: " +
    "no internal notes; the address only as far as each listing's addressVisibility allows). Every argument is optional and " +
    'they combine with AND. `q` is free text over code, title, description, city and neighborhood; `city` and ' +
    '`neighborhood` match case- and accent-insensitive substrings. Geo: `near` ("lat,lng") with `radiusKm` ' +
    '(default 10) and `sortBy: "distance"`, or `bounds` ("south,west,north,east"). Prices are in the listing\'s ' +
    "currency. `lang` (es, en, ...) asks for titles and descriptions in a language the agency serves; each listing's " +
    '`language` says which it got. Paged: `page` from 1, `pageSize` up to 48 (default 12); `meta.total` is the number of matches (at least, with `meta.totalIsLowerBound`, past 10,000).',
  scopes: ['portal:read'],
  input: SearchPropertiesInputSchema,
  output: PortalPropertyPageResponseSchema,
  run: async ({ db, caller }, args) =>
    pageOnly(
      await searchPortalProperties(
        db,
        caller,
        portalQuery(args as SearchPropertiesInput),
        servedIn(caller.organization, (args as SearchPropertiesInput).lang),
      ),
    ),
  summarize: (result) => pageSummary(result, 'property', 'properties'),
});

const GetPropertyInputSchema = Type.Object(
  {
    propertyId: Type.String({ minLength: 1, maxLength: 64, description: 'prop_… identifier' }),
    lang: Type.Optional(
      Type.String({
        pattern: LANGUAGE_PATTERN,
        description:
          'Title and description in this language where the agency serves it and the listing has it',
      }),
    ),
  },
  { additionalProperties: false },
);

export const getPropertyTool = defineTool({
  name: 'get_property',
  title: 'Get one published property',
  description:
    'One published listing by its id (prop_…, as search_properties returns it), with photos, amenities and ' +
    'the agent in charge. A property that is not published, or does not exist, is reported as not found.',
  scopes: ['portal:read'],
  input: GetPropertyInputSchema,
  output: PortalPropertyResponseSchema,
  run: async ({ db, caller }, args: Static<typeof GetPropertyInputSchema>) => ({
    data: await getPortalProperty(db, caller, args.propertyId, servedIn(caller.organization, args.lang)),
  }),
  summarize: ({ data }) =>
    `${data.code}: ${data.title} — ${data.price} ${data.currency}, ${data.city} (${data.transactionType}).`,
});

const SearchListingsInputSchema = pageModeQuery(ListingListQuerySchema);

export const searchListingsTool = defineTool({
  name: 'search_listings',
  title: "Search the agency's own listings",
  description:
    "The agency's own view of its listings (GET /v1/listings): every status (DRAFT, ACTIVE, RESERVED, SOLD, " +
    'RENTED, INACTIVE), published or not, with internal notes, custom fields and the exact address. Every ' +
    'argument is optional and they combine with AND: `status`, `publishedOnPortal`, `featured`, `agentId`, ' +
    '`code` (exact), `q` (free text over code, title, description, city and neighborhood), `transactionType`, ' +
    '`type`, `city` (case- and accent-insensitive substring), `priceMin`, `priceMax`, `bedroomsMin`. Newest ' +
    'first. Paged: `page` from 1, `pageSize` up to 100. For what visitors see, use search_properties.',
  scopes: ['listings:read'],
  input: SearchListingsInputSchema,
  output: ListOf(ref(AdminPropertySchema)),
  run: async ({ db, caller }, args: Static<typeof SearchListingsInputSchema>) =>
    pageOnly(await listListings(db, caller, args)),
  summarize: (result) => pageSummary(result, 'listing'),
});

export const propertiesMcpTools = [searchPropertiesTool, getPropertyTool, searchListingsTool];

// The portal query type also admits its `hasX` text flags, hence the assertion.
const FIRST_PROPERTY = { page: 1, pageSize: 1 } as PortalListQuery;

/** The MCP summary's count of the properties feature. */
export const propertiesMcpCounts: McpCountDefinition[] = [
  {
    name: 'publishedProperties',
    description: 'Listings on the portal (portal:read)',
    scope: 'portal:read',
    count: async ({ db, caller }) =>
      pageOnly(await searchPortalProperties(db, caller, FIRST_PROPERTY)).meta.total,
  },
];
