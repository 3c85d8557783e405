import { readAs } from '../../platform/tenancy/caller-tx.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import type { Database, Tx } from '../../db/database.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { fold } from '../../platform/text/fold.ts';
import { isId } from '../../platform/ids/ids.ts';
import { type Contact, findContactInTx } from '../contacts/index.ts';
import {
  type Amenity,
  PROPERTY_TYPES,
  type PropertyType,
  type TransactionType,
} from '../properties/index.ts';
import {
  FINDER_CRITERIA,
  FINDER_MAX_RESULTS,
  type FinderBreakdownItem,
  type FinderCriterion,
  type FinderMatch,
  type MatchState,
} from './finder.schema.ts';
import * as store from './finder.store.ts';

// The scoring rules. docs/finder.md explains them with a worked example; change both together.

/** Base weights (they add up to 100); the weights of the criteria a person gives are rescaled to 100. */
export const CRITERION_WEIGHTS: Readonly<Record<FinderCriterion, number>> = {
  transactionType: 10,
  propertyType: 20,
  budget: 25,
  location: 25,
  bedrooms: 10,
  amenities: 10,
};

/** A listing is a match (counted in `total`, listed) from this score on: more than half of what was asked. */
export const MIN_MATCH_SCORE = 60;

/** Within 10% outside the budget is a partial match; more than 10% over `budgetMax` is never shown. */
export const BUDGET_TOLERANCE = 0.1;

/** Types close enough to stand in for each other (a partial match); the rest stand alone. */
export const PROPERTY_TYPE_FAMILIES: readonly (readonly PropertyType[])[] = [
  ['APARTMENT', 'STUDIO', 'PENTHOUSE', 'DUPLEX'],
  ['HOUSE', 'VILLA', 'TOWNHOUSE'],
  ['COMMERCIAL', 'OFFICE', 'WAREHOUSE'],
];

/** Listing transaction types that suit a person: SALE_OR_RENT listings suit buyers and renters. */
const SUITABLE_TRANSACTIONS: Record<TransactionType, readonly TransactionType[]> = {
  SALE: ['SALE', 'SALE_OR_RENT'],
  RENT: ['RENT', 'SALE_OR_RENT'],
  SALE_OR_RENT: ['SALE', 'RENT', 'SALE_OR_RENT'],
};

/** What a person looks for; every member optional, at least one given (HTTP-free, also for MCP tools). */
export type FinderCriteria = {
  transactionType?: TransactionType;
  propertyType?: PropertyType;
  city?: string;
  neighborhood?: string;
  budgetMin?: number;
  budgetMax?: number;
  minBedrooms?: number;
  amenities?: Amenity[];
};

/** The criteria a search gives, in breakdown order. An empty amenity list gives none. */
export function givenCriteria(criteria: FinderCriteria): FinderCriterion[] {
  const given: Record<FinderCriterion, boolean> = {
    transactionType: criteria.transactionType !== undefined,
    propertyType: criteria.propertyType !== undefined,
    budget: criteria.budgetMin !== undefined || criteria.budgetMax !== undefined,
    location: criteria.city !== undefined || criteria.neighborhood !== undefined,
    bedrooms: criteria.minBedrooms !== undefined,
    amenities: (criteria.amenities?.length ?? 0) > 0,
  };
  return FINDER_CRITERIA.filter((criterion) => given[criterion]);
}

/**
 * Integer weights of the given criteria, rescaled from the base weights so they add up to exactly
 * 100 (largest remainder: the floors first, the points left over to the largest fractions, ties
 * in breakdown order).
 */
export function criterionWeights(
  given: readonly FinderCriterion[],
): Partial<Record<FinderCriterion, number>> {
  const sum = given.reduce((total, criterion) => total + CRITERION_WEIGHTS[criterion], 0);
  const shares = given.map((criterion) => {
    const exact = (CRITERION_WEIGHTS[criterion] * 100) / sum;
    return { criterion, weight: Math.floor(exact), fraction: exact - Math.floor(exact) };
  });
  let left = 100 - shares.reduce((total, share) => total + share.weight, 0);
  for (const share of [...shares].sort((a, b) => b.fraction - a.fraction)) {
    if (left <= 0) break;
    share.weight += 1;
    left -= 1;
  }
  return Object.fromEntries(shares.map((share) => [share.criterion, share.weight]));
}

/**
 * Checks what the schema cannot: at least one criterion, no blank place names, and
 * `budgetMin <= budgetMax`; a 400 naming the field (`prefix` is the criteria's place in the request).
 */
export function checkCriteria(criteria: FinderCriteria, prefix = 'body'): void {
  for (const field of ['city', 'neighborhood'] as const) {
    const value = criteria[field];
    if (value !== undefined && fold(value) === '')
      throw Errors.invalidField(`${prefix}.${field}`, 'must not be blank');
  }
  if (
    criteria.budgetMin !== undefined &&
    criteria.budgetMax !== undefined &&
    criteria.budgetMin > criteria.budgetMax
  ) {
    throw Errors.invalidField(`${prefix}.budgetMax`, `must be greater than or equal to ${prefix}.budgetMin`);
  }
  if (givenCriteria(criteria).length === 0) {
    const message =
      'must give at least one search criterion: transactionType, propertyType, city, neighborhood, ' +
      'budgetMin, budgetMax, minBedrooms or amenities';
    throw Errors.validation(`${prefix} ${message}`, [{ field: prefix, message }]);
  }
}

function stateOf(criterion: FinderCriterion, level: number, wanted: number): MatchState {
  if (criterion === 'amenities') return level >= wanted ? 'match' : level > 0 ? 'partial' : 'miss';
  return level >= 2 ? 'match' : level === 1 ? 'partial' : 'miss';
}

/** The finder's query for the store: weights, families, tolerance and folded places from `criteria`. */
export function scoringQuery(
  criteria: FinderCriteria,
  options: { limit?: number; minScore?: number } = {},
): store.ScoringQuery {
  const given = givenCriteria(criteria);
  const type = criteria.propertyType;
  const family = type ? PROPERTY_TYPE_FAMILIES.find((members) => members.includes(type)) : undefined;
  const amenities = [...new Set(criteria.amenities ?? [])];
  return {
    weights: criterionWeights(given),
    transactionTypes: criteria.transactionType ? SUITABLE_TRANSACTIONS[criteria.transactionType] : undefined,
    propertyType: type
      ? { exact: type, related: (family ?? []).filter((member) => member !== type) }
      : undefined,
    budget: given.includes('budget')
      ? { min: criteria.budgetMin ?? null, max: criteria.budgetMax ?? null, tolerance: BUDGET_TOLERANCE }
      : undefined,
    location: given.includes('location')
      ? {
          city: criteria.city === undefined ? null : fold(criteria.city),
          neighborhood: criteria.neighborhood === undefined ? null : fold(criteria.neighborhood),
        }
      : undefined,
    minBedrooms: criteria.minBedrooms,
    amenities: amenities.length > 0 ? amenities : undefined,
    minScore: options.minScore ?? MIN_MATCH_SCORE,
    // At least one row must come back to carry `total`.
    limit: Math.max(1, options.limit ?? FINDER_MAX_RESULTS),
  };
}

/**
 * Scores the organization's published listings against `criteria` inside the caller's transaction:
 * the best `limit` (default 12) of those scoring at least `minScore` (default 60), best first and
 * newest first among equals, each with its breakdown, and how many reach `minScore` in all. Throws
 * a 400 for criteria `checkCriteria` refuses.
 */
export async function scoreProperties(
  tx: Tx,
  organizationId: string,
  criteria: FinderCriteria,
  options: { limit?: number; minScore?: number; fieldPrefix?: string } = {},
): Promise<{ total: number; properties: FinderMatch[] }> {
  checkCriteria(criteria, options.fieldPrefix);
  const query = scoringQuery(criteria, options);
  const { total, properties } = await store.scorePublishedProperties(tx, organizationId, query);
  return { total, properties: matchesOf(criteria, query, properties) };
}

/** Scored listings as the answer shows them: each with its breakdown over the criteria given. */
export function matchesOf(
  criteria: FinderCriteria,
  query: store.ScoringQuery,
  scored: readonly store.ScoredProperty[],
): FinderMatch[] {
  const given = givenCriteria(criteria);
  const { weights } = query;
  const wanted = query.amenities?.length ?? 0;
  return scored.map((p) => ({
    id: p.id,
    title: p.title,
    price: p.price,
    currency: p.currency,
    transactionType: p.transactionType as FinderMatch['transactionType'],
    type: p.type as FinderMatch['type'],
    city: p.city,
    neighborhood: p.neighborhood,
    bedrooms: p.bedrooms,
    area: p.area,
    photoUrl: p.photoUrl,
    matchScore: p.score,
    breakdown: given.map((criterion): FinderBreakdownItem => ({
      criterio: criterion,
      puntos: p.points[criterion] ?? 0,
      peso: weights[criterion] ?? 0,
      estado: stateOf(criterion, p.levels[criterion] ?? 0, wanted),
    })),
  }));
}

/** The finder criteria a contact's saved preferences give: city, property type, budget as the maximum. */
export function contactCriteria(contact: Contact): FinderCriteria {
  const criteria: FinderCriteria = {};
  if (contact.preferredCity !== null && fold(contact.preferredCity) !== '')
    criteria.city = contact.preferredCity;
  const type = contact.preferredType as PropertyType | null;
  if (type !== null && PROPERTY_TYPES.includes(type)) criteria.propertyType = type;
  if (contact.budget !== null) criteria.budgetMax = contact.budget;
  return criteria;
}

/** What `matchPropertiesForContact` answers: the criteria it scored with, and the matches. */
export interface ContactMatches {
  contact: { id: string; fullName: string };
  criteria: FinderCriteria;
  total: number;
  properties: FinderMatch[];
}

/**
 * The finder's scoring applied to a contact's preferences (`contactCriteria`), with `overrides`
 * replacing or adding criteria, for the MCP tool `match_properties_for_contact`. Reads only: no
 * search is saved and no event recorded. 404 for a contact that is not the organization's; 400
 * when neither the contact nor `overrides` give a criterion.
 */
export async function matchPropertiesForContact(
  db: Database,
  caller: Caller,
  contactId: string,
  overrides: FinderCriteria,
  options: { limit?: number } = {},
): Promise<ContactMatches> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) => {
    const contact = isId(contactId, 'ct') ? await findContactInTx(tx, organizationId, contactId) : null;
    if (!contact) throw Errors.notFound('Contact', contactId);
    const given = Object.entries(overrides).filter(([, value]) => value !== undefined);
    const criteria: FinderCriteria = { ...contactCriteria(contact), ...Object.fromEntries(given) };
    if (givenCriteria(criteria).length === 0) {
      throw Errors.invalidField(
        'contactId',
        'names a contact without preferences (preferredCity, preferredType, budget): give criteria such as city or budgetMax',
      );
    }
    const { total, properties } = await scoreProperties(tx, organizationId, criteria, options);
    return { contact: { id: contact.id, fullName: contact.fullName }, criteria, total, properties };
  });
}
