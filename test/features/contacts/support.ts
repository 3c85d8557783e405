/**
 * Shared parts of the contacts tests: phone numbers in every spelling, raw reads, the catalog's shape
 * of an event, and bulk-seeded contacts.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/database.ts';
import { events } from '../../../src/db/schema.ts';
import { eventCatalog, fieldTree } from '../../../src/platform/events/catalog.ts';
import { testDatabase } from '../../helpers/test-app.ts';

let phoneSequence = 0;

/** A Spanish mobile number never used before in this file: national, spaced and E.164. */
export function spanishPhone() {
  phoneSequence += 1;
  const digits = `6${String(10_000_000 + phoneSequence * 7919).slice(-8)}`;
  return {
    national: digits,
    spaced: `${digits.slice(0, 3)} ${digits.slice(3, 5)} ${digits.slice(5, 7)} ${digits.slice(7)}`,
    international: `+34 ${digits}`,
    e164: `+34${digits}`,
  };
}

/** Recorded events of these types, oldest first. */
export async function eventsOf(organizationId: string, types: string[]) {
  const db = await testDatabase();
  return db.tenantTx(organizationId, (tx) =>
    tx
      .select()
      .from(events)
      .where(and(eq(events.organizationId, organizationId), inArray(events.type, types)))
      .orderBy(asc(events.createdAt), asc(events.id)),
  );
}

/** The payload matches the published schema, and has exactly the catalog's field tree. */
export function expectCatalogShape(type: string, data: unknown): void {
  eventCatalog.check(type, data);
  const definition = eventCatalog.get(type);
  if (!definition) throw new Error(`${type} is not in the catalog`);
  const expected = JSON.stringify(keyTree(fieldTree(definition.schema)));
  const actual = JSON.stringify(keyTree(data));
  if (expected !== actual)
    throw new Error(`${type} payload keys ${actual} differ from the field tree ${expected}`);
}

/** The object keys of a value, sorted, down to the leaves (null). */
function keyTree(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, keyTree((value as Record<string, unknown>)[key])]),
  );
}

/**
 * Inserts `count` contacts straight into the table (one INSERT ... SELECT), for lists that need
 * thousands: ids `ct_<tag><n, 18 digits>`, names `Bulk <n>`, no phone or email, source IMPORT. Row
 * n's updated_at is `firstUpdatedAt` for even n (one instant: ties ordered by id) and that plus n µs
 * for odd n (instants finer than a millisecond, which the API's answers cannot show).
 */
export async function seedContacts(
  organizationId: string,
  count: number,
  options: { tag: string; firstUpdatedAt: string },
): Promise<string[]> {
  const db = await testDatabase();
  const tag = options.tag;
  if (!/^[A-Za-z]{4}$/.test(tag)) throw new Error('seedContacts: the tag is 4 letters');
  await db.tenantTx(organizationId, (tx) =>
    queryRows(
      tx,
      sql`INSERT INTO contacts (id, organization_id, code, first_name, last_name, source, status, type,
            search_text, created_at, updated_at)
          SELECT 'ct_' || ${tag} || lpad(n::text, 18, '0'), ${organizationId}, 'BULK-' || ${tag} || '-' || n,
            'Bulk', n::text, 'IMPORT', 'NEW', 'LEAD', 'bulk ' || n, ${options.firstUpdatedAt}::timestamptz,
            ${options.firstUpdatedAt}::timestamptz + CASE WHEN n % 2 = 0 THEN interval '0' ELSE n * interval '1 microsecond' END
          FROM generate_series(1, ${count}::int) AS n`,
    ),
  );
  return Array.from({ length: count }, (_, i) => `ct_${tag}${String(i + 1).padStart(18, '0')}`);
}
