// A portal form's contact as CTEs of the form's own statement (decision 0226): what
// upsertPortalContact, recordFormConsents and recomputeContactScore do step by step, in one round
// trip. The finder's statement is built on it; the step-by-step functions stay the reference (and
// the way other forms go), and test/features/finder/finder-equivalence.test.ts holds the two together.
import { sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../platform/events/catalog.ts';
import { jsonTimestampSql } from '../../platform/events/record.ts';
import { bumpCounterSql, codeSql } from '../../platform/ids/codes.ts';
import { newId } from '../../platform/ids/ids.ts';
import { fold } from '../../platform/text/fold.ts';
import { CONSENT_CHANNELS, type FormConsents } from './contacts.consent.ts';
import { ContactConsentChanged, ContactCreated, ContactUpdated } from './contacts.events.ts';
import { contactScoreSql, type PendingActivity } from './contacts.score.ts';
import { contactJsonSql, searchText } from './contacts.service.ts';
import type { PortalContactInput } from './contacts.upsert.ts';

/** What the one-statement form knows of the person: a portal form's input without last name or owner. */
export type FormContactInput = Omit<PortalContactInput, 'lastName' | 'ownerId'>;

/** The contact part of a form's statement. */
export interface FormContactSql {
  /** CTE definitions, comma-separated: the statement opens `WITH ${ctes}, ...`. */
  ctes: SQL;
  /**
   * The CTE holding the contact's row as written (one row), with `created`. Empty when the statement
   * cannot do the form's contact itself: a parallel form of the same person committed the contact
   * first (the insert met its phone or email; the contact counter was bumped, as the step-by-step
   * upsert bumps it then too), or a known contact gains a phone or email and its `search_text` is not
   * what `searchText` writes (the statement folds only the new part; see `newSearchText`). The form's
   * other writes must then depend on it (`written`), and the form goes the step-by-step way.
   */
  contact: SQL;
  /** True (an SQL boolean) once the contact was written: a condition for the form's other writes. */
  written: SQL;
  /**
   * A SELECT of the events to record (`ord`, `id`, `type`, `data`) for `recordEventsSql`, in the
   * order the step-by-step functions record them; `ord` stays below 100, for the form's own events.
   */
  events: SQL;
}

/**
 * `search_text` after a form fills in a known contact's phone or email. `searchText` folds "first
 * last email phone" (trimmed) in JavaScript, which SQL cannot repeat for the names; but a form fills
 * only a missing phone (the contact was found by email, which it holds) or a missing email (found
 * by phone): the folded text of the names is already in the stored `search_text`, and only the new
 * part is folded here, in Node. The stored text must end as `searchText` leaves it (checked: `ok`).
 */
function newSearchText(foldedEmail: string | null, foldedPhone: string) {
  return {
    // "…email" -> "…email phone" (the empty phone was trimmed off the end).
    phone: {
      text: sql`x.search_text || ' ' || ${foldedPhone}::text`,
      ok: sql`right(x.search_text, length(${foldedEmail}::text) + 1) = ' ' || ${foldedEmail}::text`,
    },
    // "…last  phone" -> "…last email phone" (the empty email sat between two spaces).
    email: {
      text: sql`left(x.search_text, -(length(${foldedPhone}::text) + 2)) || ' ' || ${foldedEmail}::text || ' ' || ${foldedPhone}::text`,
      ok: sql`right(x.search_text, length(${foldedPhone}::text) + 2) = '  ' || ${foldedPhone}::text`,
    },
  };
}

/**
 * The contact of a portal form as CTEs (names start with `form_`): found by E.164 phone, then email,
 * and locked; created (NEW/LEAD, the next CT- code) or updated with upsertPortalContact's rules
 * (missing phone or email filled in, fresh preferences, new tags, `lastActivityAt`); the form's
 * consents recorded with recordConsent's rules (a history row each; `contact.consent_changed` when
 * the status changes; MESSAGING keeps `optedOut` in step); the score recomputed with
 * `pendingActivity`, the activity the same statement writes (invisible to its other CTEs). The
 * contact row is written once, with its final score and `optedOut`; the events carry the contact as
 * the step-by-step path shows it at each point (before the score, before or after the opt-out).
 */
export function formContactSql(
  organizationId: string,
  input: FormContactInput,
  consents: { given: FormConsents | undefined; source: string },
  actor: Actor,
  pendingActivity: readonly PendingActivity[],
): FormContactSql {
  const emailKey = input.email ? input.email.trim().toLowerCase() : null;
  const email = input.email?.trim() ?? null;
  const firstName = input.firstName.trim();
  const tags = [...new Set(input.tags ?? [])];
  const budget = input.budget ?? null;
  const currency = input.currency ?? null;
  const now = new Date().toISOString();
  const org = sql`${organizationId}::text`;
  const phone = sql`${input.phone}::text`;
  const ek = sql`${emailKey}::text`;
  const city = sql`${input.preferredCity ?? null}::text`;
  const type = sql`${input.preferredType ?? null}::text`;
  const budgetValue = sql`${budget}::numeric`;
  const fills = newSearchText(email === null ? null : fold(email), fold(input.phone));

  // Ids in the order the step-by-step path makes them, so events recorded together sort as they happen.
  const contactId = newId('ct');
  const contactEventId = newId('evt');
  const given = CONSENT_CHANNELS.flatMap((channel, index) => {
    const value = consents.given?.[channel.toLowerCase() as keyof FormConsents];
    if (value === undefined) return [];
    return [
      {
        n: index + 1,
        id: newId('cns'),
        channel,
        status: value ? 'GRANTED' : 'REVOKED',
        event_id: newId('evt'),
        opt_out_event_id: channel === 'MESSAGING' ? newId('evt') : null,
      },
    ];
  });
  const messaging = given.find((consent) => consent.channel === 'MESSAGING');
  // MESSAGING keeps optedOut in step: REVOKED = opted out.
  const optedOut = (current: SQL) =>
    messaging === undefined ? current : sql`${messaging.status === 'REVOKED'}::boolean`;
  const score = (id: SQL) => contactScoreSql(organizationId, id, pendingActivity);

  const ctes = sql`form_by_phone AS (
      SELECT * FROM contacts WHERE organization_id = ${org} AND phone = ${phone} LIMIT 1 FOR UPDATE
    ), form_by_email AS (
      SELECT * FROM contacts
      WHERE organization_id = ${org} AND email_key = ${ek}
        AND NOT EXISTS (SELECT 1 FROM form_by_phone p WHERE p.email_key = ${ek})
      LIMIT 1 FOR UPDATE
    ), form_found AS (
      SELECT x.*,
        coalesce(x.phone, '') = '' AND NOT coalesce((SELECT coalesce(b.phone, '') <> '' FROM form_by_email b), false) AS fill_phone,
        coalesce(x.email_key, '') = '' AND ${ek} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM form_by_email) AS fill_email,
        ${budgetValue} IS NOT NULL AND x.budget IS DISTINCT FROM ${budgetValue} AS budget_changes,
        ARRAY(SELECT t FROM unnest(x.tags || ${sql.param(tags)}::text[]) WITH ORDINALITY AS u(t, n) GROUP BY t ORDER BY min(n)) AS new_tags
      FROM (SELECT * FROM form_by_phone UNION ALL SELECT * FROM form_by_email WHERE NOT EXISTS (SELECT 1 FROM form_by_phone)) x
    ), form_match AS (
      SELECT x.*,
        CASE WHEN x.fill_phone THEN ${fills.phone.ok} WHEN x.fill_email THEN ${fills.email.ok} ELSE true END AS ok,
        CASE WHEN x.fill_phone THEN ${fills.phone.text} WHEN x.fill_email THEN ${fills.email.text} ELSE x.search_text END AS new_search_text,
        array_remove(ARRAY[
          CASE WHEN x.fill_phone THEN 'phone' END,
          CASE WHEN x.fill_email AND x.email IS DISTINCT FROM ${email}::text THEN 'email' END,
          CASE WHEN ${city} IS NOT NULL AND x.preferred_city IS DISTINCT FROM ${city} THEN 'preferredCity' END,
          CASE WHEN ${type} IS NOT NULL AND x.preferred_type IS DISTINCT FROM ${type} THEN 'preferredType' END,
          CASE WHEN x.budget_changes THEN 'budget' END,
          CASE WHEN x.budget_changes AND ${currency}::text IS NOT NULL AND x.currency IS DISTINCT FROM ${currency}::text THEN 'currency' END,
          CASE WHEN cardinality(x.new_tags) <> cardinality(x.tags) THEN 'tags' END
        ], NULL) || 'lastActivityAt'::text AS changes
      FROM form_found x
    ), form_code AS (
      ${bumpCounterSql(organizationId, 'contact', sql`NOT EXISTS (SELECT 1 FROM form_match)`)}
    ), form_inserted AS (
      INSERT INTO contacts (id, organization_id, code, first_name, last_name, email, email_key, phone, source,
        status, type, owner_id, preferred_city, preferred_type, budget, currency, tags, search_text,
        last_activity_at, score, opted_out)
      SELECT ${contactId}::text, ${org}, ${codeSql('CT', sql`form_code.value`)}, ${firstName}::text, '',
        ${email}::text, ${ek}, ${phone}, ${input.source}::text, 'NEW', 'LEAD', NULL, ${city}, ${type},
        ${budgetValue}, ${budget === null ? null : currency}::text, ${sql.param(tags)}::text[],
        ${searchText({ firstName, lastName: '', email, phone: input.phone })}::text, ${now}::timestamptz,
        ${score(sql`${contactId}::text`)}, ${optedOut(sql`false`)}
      FROM form_code
      ON CONFLICT DO NOTHING
      RETURNING *
    ), form_updated AS (
      UPDATE contacts c SET
        phone = CASE WHEN m.fill_phone THEN ${phone} ELSE c.phone END,
        email = CASE WHEN m.fill_email THEN ${email}::text ELSE c.email END,
        email_key = CASE WHEN m.fill_email THEN ${ek} ELSE c.email_key END,
        preferred_city = coalesce(${city}, c.preferred_city),
        preferred_type = coalesce(${type}, c.preferred_type),
        budget = CASE WHEN m.budget_changes THEN ${budgetValue} ELSE c.budget END,
        currency = CASE WHEN m.budget_changes AND ${currency}::text IS NOT NULL THEN ${currency}::text ELSE c.currency END,
        tags = m.new_tags,
        search_text = m.new_search_text,
        last_activity_at = ${now}::timestamptz,
        updated_at = now(),
        score = ${score(sql`m.id`)},
        opted_out = ${optedOut(sql`c.opted_out`)}
      FROM form_match m
      WHERE c.organization_id = ${org} AND c.id = m.id AND m.ok
      RETURNING c.*
    ), form_contact AS (
      -- A new row's score and optedOut before this statement's own changes: the column defaults.
      SELECT i.*, true AS created, 0 AS score_before, false AS opted_out_before, NULL::text[] AS changes
      FROM form_inserted i
      UNION ALL
      SELECT u.*, false, m.score, m.opted_out, m.changes FROM form_updated u JOIN form_match m ON m.id = u.id
    ), form_consent_given AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(given)}::json)
        AS g(n int, id text, channel text, status text, event_id text, opt_out_event_id text)
    ), form_consent_previous AS (
      SELECT DISTINCT ON (p.channel) p.channel, p.status FROM contact_consents p
      WHERE p.organization_id = ${org} AND p.contact_id = (SELECT id FROM form_contact)
      ORDER BY p.channel, p.created_at DESC, p.id DESC
    ), form_consent_inserted AS (
      -- Stamped with the clock, one row after the other, as recordConsent stamps each of its inserts.
      INSERT INTO contact_consents (id, organization_id, contact_id, channel, status, source, actor_kind, created_at)
      SELECT g.id, ${org}, c.id, g.channel, g.status, ${consents.source}::text, ${actor.kind}::text, clock_timestamp()
      FROM form_consent_given g CROSS JOIN form_contact c
      ORDER BY g.n
      RETURNING id, channel, status, source, created_at
    )`;

  const before = { score: sql`c.score_before`, optedOut: sql`c.opted_out_before` };
  const events = sql`
      SELECT 1 AS ord, ${contactEventId}::text AS id,
        CASE WHEN c.created THEN ${ContactCreated.type} ELSE ${ContactUpdated.type} END::text AS type,
        CASE WHEN c.created THEN jsonb_build_object('contact', ${contactJsonSql('c', before)})
          ELSE jsonb_build_object('contact', ${contactJsonSql('c', before)}, 'changes', to_jsonb(c.changes)) END AS data
      FROM form_contact c
      UNION ALL
      SELECT 10 * g.n, g.event_id, ${ContactConsentChanged.type}::text,
        jsonb_build_object('consent', jsonb_build_object('contactId', c.id, 'channel', i.channel,
          'status', i.status, 'source', i.source, 'at', ${jsonTimestampSql(sql`i.created_at`)}))
      FROM form_consent_inserted i
      JOIN form_consent_given g ON g.id = i.id
      CROSS JOIN form_contact c
      LEFT JOIN form_consent_previous p ON p.channel = i.channel
      WHERE p.status IS DISTINCT FROM i.status
      UNION ALL
      SELECT 10 * g.n + 1, g.opt_out_event_id, ${ContactUpdated.type}::text,
        jsonb_build_object('contact', ${contactJsonSql('c', { score: sql`c.score_before` })}, 'changes', '["optedOut"]'::jsonb)
      FROM form_consent_given g CROSS JOIN form_contact c
      WHERE g.channel = 'MESSAGING' AND c.opted_out IS DISTINCT FROM c.opted_out_before`;

  return {
    ctes,
    contact: sql.raw('form_contact'),
    written: sql`EXISTS (SELECT 1 FROM form_contact)`,
    events,
  };
}
