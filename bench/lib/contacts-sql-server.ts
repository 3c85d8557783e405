/**
 * Child-process entry: the hand-written baseline of the `contacts` scenario. GET /v1/contacts?q= on
 * `pg` alone (bare-pg-route.ts): `q` turned into substrings of the stored `search_text` (input that
 * reads as a phone number, digits and + - . ( ) and spaces, becomes its digits; anything else its
 * lowercase, accent-free words), newest first (created_at, then id), one page and the count of every
 * match in ONE named prepared statement. Only the default order is answered.
 */
import {
  foldText,
  integerOf,
  isoSql,
  likePatterns,
  listenBarePgRoute,
  queryOf,
  type BarePgRouteOptions,
} from './bare-pg-route.ts';
import { serveChild } from './protocol.ts';

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

const MATCHES = `organization_id = $1 AND search_text LIKE ALL ($2::text[])`;

// Page and count read the organization's entries of contacts_organization_id_created_at_idx
// (organization, created_at, id, search_text): `q` is tested on the entries, so the count and the
// choice of the page's ids are index-only, and only the page's rows are read from the table.
const LIST = {
  name: 'bench_contacts_list',
  text: `SELECT c.total, page.*
    FROM (SELECT count(*)::int AS total FROM contacts WHERE ${MATCHES}) c
    LEFT JOIN LATERAL (
      SELECT x.id, x.code, x.first_name, x.last_name, x.email, x.phone, x.source, x.status, x.type, x.score,
        x.owner_id, x.preferred_city, x.preferred_language, x.preferred_type, x.budget, x.currency, x.tags, x.opted_out,
        x.external_id, ${isoSql('x.created_at')} AS created_at, ${isoSql('x.updated_at')} AS updated_at
      FROM contacts x
      WHERE x.organization_id = $1 AND x.id IN (
        SELECT id FROM contacts WHERE ${MATCHES} ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4)
      ORDER BY x.created_at DESC, x.id DESC
    ) page ON true`,
};

interface ContactRow {
  total: number;
  id: string | null;
  code: string;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  source: string;
  status: string;
  type: string;
  score: number;
  owner_id: string | null;
  preferred_city: string | null;
  preferred_language: string | null;
  preferred_type: string | null;
  /** numeric: text from the driver. */
  budget: string | null;
  currency: string | null;
  tags: string[];
  opted_out: boolean;
  external_id: string | null;
  created_at: string;
  updated_at: string;
}

const PHONE_LIKE = /^[+\d\s().-]*\d[+\d\s().-]*$/;

/** The substrings `q` asks for. */
function termsOf(q: string | undefined): string[] {
  if (q === undefined) return [];
  if (PHONE_LIKE.test(q.trim())) return [q.replace(/\D/g, '')];
  return foldText(q).split(/\s+/).filter(Boolean);
}

function contactJson(row: ContactRow & { id: string }) {
  return {
    id: row.id,
    code: row.code,
    firstName: row.first_name,
    lastName: row.last_name,
    fullName: [row.first_name, row.last_name].filter(Boolean).join(' '),
    email: row.email,
    phone: row.phone,
    source: row.source,
    status: row.status,
    type: row.type,
    score: row.score,
    ownerId: row.owner_id,
    preferredCity: row.preferred_city,
    preferredLanguage: row.preferred_language,
    preferredType: row.preferred_type,
    budget: row.budget === null ? null : Number(row.budget),
    currency: row.currency,
    tags: row.tags,
    optedOut: row.opted_out,
    externalId: row.external_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

serveChild<BarePgRouteOptions>((options) =>
  listenBarePgRoute(options, {
    method: 'GET',
    url: '/v1/contacts',
    status: 200,
    async handle(pool, organizationId, request) {
      const q = queryOf(request, ['q', 'page', 'pageSize']);
      const page = integerOf(q.page, 1, 1, 1_000_000);
      const pageSize = integerOf(q.pageSize, DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
      const { rows } = await pool.query<ContactRow>({
        ...LIST,
        values: [organizationId, likePatterns(termsOf(q.q)), pageSize, (page - 1) * pageSize],
      });
      const total = rows[0]?.total ?? 0;
      return {
        data: rows.filter((row): row is ContactRow & { id: string } => row.id !== null).map(contactJson),
        meta: { total, page, pageSize, totalPages: Math.ceil(total / pageSize) },
      };
    },
  }),
);
