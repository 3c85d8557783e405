// POST /v1/finder's write: the search, the person as a contact, the count and the events, in one
// tenant transaction and, on the common path, ONE statement (decision 0226).
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { Database, Tx } from '../../db/database.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { checkRecordedEvents, recordEvent } from '../../platform/events/record.ts';
import { newId } from '../../platform/ids/ids.ts';
import { normalizePhone } from '../../platform/text/phone.ts';
import { recordAnalyticsEventInTx, recordAnalyticsEventSql } from '../analytics/index.ts';
import {
  CONSENT_SOURCES,
  formContactSql,
  recomputeContactScore,
  recordFormConsents,
  upsertPortalContact,
  type FormContactInput,
} from '../contacts/index.ts';
import { FinderSubmitted } from './finder.events.ts';
import type { FinderBody, FinderResult } from './finder.schema.ts';
import {
  checkCriteria,
  matchesOf,
  scoreProperties,
  scoringQuery,
  type FinderCriteria,
} from './finder.service.ts';
import * as store from './finder.store.ts';

/** The criteria of a finder form as saved and published: text trimmed, members left out stay out. */
function criteriaOf(body: FinderBody): FinderCriteria {
  const criteria: FinderCriteria = {
    transactionType: body.transactionType,
    propertyType: body.propertyType,
    city: body.city?.trim(),
    neighborhood: body.neighborhood?.trim(),
    budgetMin: body.budgetMin,
    budgetMax: body.budgetMax,
    minBedrooms: body.minBedrooms,
    amenities: body.amenities,
  };
  return Object.fromEntries(
    Object.entries(criteria).filter(([, value]) => value !== undefined),
  ) as FinderCriteria;
}

/** One submission, checked: what both ways of saving it need. */
interface Submission {
  organizationId: string;
  criteria: FinderCriteria;
  body: FinderBody;
  /** The person as the contact upsert takes them (source FINDER, tag `finder`, preferences from the criteria). */
  person: FormContactInput;
  actor: Actor;
}

/** Checks the form (400s naming the field) before any transaction opens. */
function submissionOf(caller: Caller, body: FinderBody): Submission {
  const organization = caller.organization;
  const criteria = criteriaOf(body);
  if (body.firstName.trim().length < 2) {
    throw Errors.invalidField('body.firstName', 'must have at least 2 characters other than spaces');
  }
  checkCriteria(criteria);
  const person: FormContactInput = {
    firstName: body.firstName,
    phone: normalizePhone(body.phone, organization.defaultCountry),
    email: body.email,
    source: 'FINDER',
    preferredCity: criteria.city,
    preferredType: criteria.propertyType,
    budget: criteria.budgetMax,
    currency: organization.defaultCurrency,
    tags: ['finder'],
  };
  return { organizationId: organization.id, criteria, body, person, actor: actorOf(caller) };
}

/**
 * Runs the property finder for a portal visitor, in one tenant transaction: scores the published
 * stock, upserts the person as a contact (source FINDER, tag `finder`, preferences from the
 * criteria) with the consents the form carried, saves the search with what was shown, counts a
 * FINDER_SUBMIT analytics event and records `finder.submitted`. All of it in one statement (three
 * round trips on PostgreSQL with BEGIN and COMMIT), unless the contact cannot be done there (a
 * parallel form of the same person, see `formContactSql`): then step by step, in the same transaction.
 */
export async function submitFinder(db: Database, caller: Caller, body: FinderBody): Promise<FinderResult> {
  const submission = submissionOf(caller, body);
  return writeAs(
    db,
    caller,
    async (tx) => (await submitInOneStatement(tx, submission)) ?? submitStepByStep(tx, submission),
  );
}

/**
 * `submitFinder` step by step (about ten statements): the other features' own functions one after
 * the other. The fallback of the one statement, and the reference it is tested against
 * (test/features/finder/finder-equivalence.test.ts).
 */
export async function submitFinderStepByStep(
  db: Database,
  caller: Caller,
  body: FinderBody,
): Promise<FinderResult> {
  const submission = submissionOf(caller, body);
  return writeAs(db, caller, (tx) => submitStepByStep(tx, submission));
}

/** The whole submission in one statement; null when it saved nothing and must go step by step. */
async function submitInOneStatement(tx: Tx, submission: Submission): Promise<FinderResult | null> {
  const { organizationId, criteria, body, person, actor } = submission;
  const query = scoringQuery(criteria);
  const consents = { given: body.consents, source: CONSENT_SOURCES.finderForm };
  // The search this statement saves counts toward the score, as it does when the score is
  // recomputed after the search is saved.
  const contact = formContactSql(organizationId, person, consents, actor, [{ kind: 'finderSearch' }]);
  const searchId = newId('fnd');
  const outcome = await store.submitSearch(tx, organizationId, {
    query,
    contact,
    // Counted with the search it belongs to, like a lead form's LEAD_FORM: both commit or neither.
    analytics: recordAnalyticsEventSql(organizationId, { type: 'FINDER_SUBMIT' }, { when: contact.written }),
    search: { id: searchId, criteria, subscribedToAlerts: body.subscribedToAlerts ?? false },
    event: { id: newId('evt'), type: FinderSubmitted.type, actor },
  });
  if (outcome.contactId === null) return null;
  // The checks the step-by-step functions make, after the fact: throwing rolls everything back.
  checkRecordedEvents(outcome.events);
  if (outcome.eventsRecorded !== outcome.events.length) {
    throw new Error('finder events must be recorded inside a tenant transaction');
  }
  if (outcome.analyticsRows !== 1) {
    throw new Error(`analytics event of ${organizationId} outside its tenant transaction`);
  }
  return {
    contact: { id: outcome.contactId },
    searchId,
    total: outcome.total,
    properties: matchesOf(criteria, query, outcome.properties),
  };
}

async function submitStepByStep(tx: Tx, submission: Submission): Promise<FinderResult> {
  const { organizationId, criteria, body, person, actor } = submission;
  const { total, properties } = await scoreProperties(tx, organizationId, criteria);
  const { contact } = await upsertPortalContact(tx, organizationId, person, actor);
  const { finderForm } = CONSENT_SOURCES;
  await recordFormConsents(tx, organizationId, contact.id, body.consents, finderForm, actor);
  const search = {
    id: newId('fnd'),
    contactId: contact.id,
    criteria,
    subscribedToAlerts: body.subscribedToAlerts ?? false,
    total,
    propertyIds: properties.map((property) => property.id),
  };
  const createdAt = await store.insertFinderSearch(tx, { organizationId, ...search });
  await recomputeContactScore(tx, organizationId, contact.id);
  // Counted with the search it belongs to, like a lead form's LEAD_FORM: both commit or neither.
  await recordAnalyticsEventInTx(tx, organizationId, { type: 'FINDER_SUBMIT' });
  await recordEvent(tx, {
    type: FinderSubmitted.type,
    data: { search: { ...search, createdAt: createdAt.toISOString() } },
    actor,
  });
  return { contact: { id: contact.id }, searchId: search.id, total, properties };
}
