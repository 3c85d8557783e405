import { Type, type Static } from '@fastify/type-provider-typebox';
import { ref, StringEnum } from '../../platform/http/schemas.ts';
import { TRANSACTION_TYPES } from '../properties/index.ts';
import { defineTool } from '../../platform/mcp/mcp-tool.ts';
import { FINDER_MAX_RESULTS, FinderBodySchema, FinderMatchSchema } from './finder.schema.ts';
import { matchPropertiesForContact, MIN_MATCH_SCORE } from './finder.service.ts';

const { transactionType, propertyType, city, neighborhood, budgetMin, budgetMax, minBedrooms, amenities } =
  FinderBodySchema.properties;
const criteria = {
  transactionType,
  propertyType,
  city,
  neighborhood,
  budgetMin,
  budgetMax,
  minBedrooms,
  amenities,
};

const MatchInputSchema = Type.Object(
  {
    contactId: Type.String({ minLength: 1, maxLength: 64, description: 'ct_… identifier' }),
    ...criteria,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: FINDER_MAX_RESULTS,
        default: FINDER_MAX_RESULTS,
        description: `How many of the best matches to list, at most ${FINDER_MAX_RESULTS}`,
      }),
    ),
  },
  { additionalProperties: false },
);

const MatchOutputSchema = Type.Object(
  {
    contact: Type.Object({ id: Type.String(), fullName: Type.String() }, { additionalProperties: false }),
    criteria: Type.Object(
      { ...criteria, transactionType: Type.Optional(StringEnum(TRANSACTION_TYPES)) },
      {
        additionalProperties: false,
        description: "The criteria scored: the contact's preferences with the arguments' criteria over them",
      },
    ),
    total: Type.Integer({
      minimum: 0,
      description: `How many published listings score at least ${MIN_MATCH_SCORE} (not only those listed)`,
    }),
    properties: Type.Array(ref(FinderMatchSchema), { description: 'Best first, each with its breakdown' }),
  },
  { additionalProperties: false },
);

export const matchPropertiesForContactTool = defineTool({
  name: 'match_properties_for_contact',
  title: 'Suggest properties for a contact',
  description:
    "Scores the agency's published listings against a contact's saved preferences (preferredCity -> city, " +
    "preferredType -> propertyType, budget -> budgetMax) with the property finder's rules, and lists the best " +
    `(score ${MIN_MATCH_SCORE}-100). Criteria given as arguments (transactionType SALE/RENT, neighborhood, ` +
    'budgetMin, minBedrooms, amenities, or city/propertyType/budgetMax) replace or add to the saved ones. Each ' +
    'match has a `breakdown` per criterion: `criterio`, `puntos` earned of `peso` possible, `estado` ' +
    'match/partial/miss — use it to explain why a listing fits. Reads only; nothing is saved.',
  scopes: ['portal:read', 'contacts:read'],
  input: MatchInputSchema,
  output: MatchOutputSchema,
  run: ({ db, caller }, args: Static<typeof MatchInputSchema>) => {
    const { contactId, limit, ...overrides } = args;
    return matchPropertiesForContact(db, caller, contactId, overrides, { limit });
  },
  summarize: (result) => {
    const best = result.properties[0];
    if (!best) return `No published listing fits ${result.contact.fullName}'s preferences.`;
    return (
      `${result.total} listing${result.total === 1 ? '' : 's'} fit ${result.contact.fullName}; ` +
      `best: ${best.title} (score ${best.matchScore}).`
    );
  },
});

export const finderMcpTools = [matchPropertiesForContactTool];
