/**
 * Child-process entry: the hand-written baseline of the `finder` scenario. POST /v1/finder on `pg`
 * alone (bare-pg-route.ts): the body checked by hand, then ONE named prepared statement
 * (finder-sql.ts) that scores the listings, upserts the person, saves the search, counts the
 * analytics event and records the events, in one round trip (autocommit: a statement is atomic).
 * Answers 201 with the same body shape as the service (ids of its own). Forms with an email or
 * consents are refused: the scenario sends neither (the person is found by phone only).
 */
import {
  baselineId,
  foldText,
  listenBarePgRoute,
  Unsupported,
  type BarePgRouteOptions,
} from './bare-pg-route.ts';
import {
  givenOf,
  matchJson,
  scoringValues,
  SUBMIT,
  weightsOf,
  type Criteria,
  type SubmitRow,
} from './finder-sql.ts';
import { serveChild } from './protocol.ts';

const CRITERIA_FIELDS = [
  'transactionType',
  'propertyType',
  'city',
  'neighborhood',
  'budgetMin',
  'budgetMax',
  'minBedrooms',
  'amenities',
] as const;
const PERSON_FIELDS = ['firstName', 'phone', 'subscribedToAlerts'];
/** What a publishable key without an agent records as the actor. */
const ACTOR = JSON.stringify({ kind: 'API', userId: null });

/** The form's criteria as saved: text trimmed, members left out stay out; a 400 for what it cannot take. */
function criteriaOf(body: Record<string, unknown>): Criteria {
  for (const name of Object.keys(body))
    if (!(CRITERIA_FIELDS as readonly string[]).includes(name) && !PERSON_FIELDS.includes(name))
      throw new Unsupported(`the baseline does not handle body.${name}`);
  const criteria: Record<string, unknown> = {};
  for (const name of CRITERIA_FIELDS) {
    const value = body[name];
    if (value !== undefined) criteria[name] = typeof value === 'string' ? value.trim() : value;
  }
  const c = criteria as Criteria;
  if (c.budgetMin !== undefined && c.budgetMax !== undefined && c.budgetMin > c.budgetMax)
    throw new Unsupported('budgetMax below budgetMin');
  if (givenOf(c).length === 0) throw new Unsupported('no criterion');
  return c;
}

serveChild<BarePgRouteOptions>((options) =>
  listenBarePgRoute(options, {
    method: 'POST',
    url: '/v1/finder',
    status: 201,
    async handle(pool, organizationId, request) {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const criteria = criteriaOf(body);
      const firstName = String(body.firstName ?? '').trim();
      const phone = String(body.phone ?? '');
      if (firstName.length < 2) throw new Unsupported('firstName too short');
      if (!/^\+[1-9]\d{6,14}$/.test(phone)) throw new Unsupported('the baseline takes E.164 phones only');
      const given = givenOf(criteria);
      const weights = weightsOf(given);
      const searchId = baselineId('fnd');
      const contactEventId = baselineId('evt');
      const { rows } = await pool.query<SubmitRow>({
        ...SUBMIT,
        values: [
          organizationId,
          ...scoringValues(criteria, foldText, weights),
          baselineId('ct'),
          firstName,
          phone,
          criteria.city ?? null,
          // search_text of a new contact: "first last email phone", folded (no last name, no email).
          foldText(`${firstName}   ${phone}`),
          searchId,
          JSON.stringify(criteria),
          body.subscribedToAlerts === true,
          contactEventId,
          baselineId('evt'),
          ACTOR,
        ],
      });
      const contactId = rows[0]?.contact_id;
      if (!contactId)
        throw new Error('the finder statement saved no contact (a parallel form of this phone?)');
      const scored = rows.filter((row) => row.id !== null);
      const wantedAmenities = new Set(criteria.amenities ?? []).size;
      return {
        data: {
          contact: { id: contactId },
          searchId,
          total: scored[0]?.total ?? 0,
          properties: scored.map((row) => matchJson(row, given, weights, wantedAmenities)),
        },
      };
    },
  }),
);
