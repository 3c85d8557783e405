/**
 * The inventory of personal data (each feature's manifest `personalData`, in its
 * `<name>.personal-data.ts`) is complete: every table of the schema is in it, every text column of each is classified (personal or not), and
 * docs/privacy.md names every place that holds personal data. A new table or column fails here
 * until someone decides what erasure and export do with it.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { FEATURES } from '../../../src/features.ts';
import { PERSONAL_DATA_PLACES } from '../../../src/features/privacy/index.ts';
import { installFeatures } from '../../../src/platform/features/manifest.ts';
import { testDatabase } from '../../helpers/test-app.ts';

// The places are the features' declarations, filled by installFeatures (no app is built here).
installFeatures(FEATURES);

interface Column {
  table_name: string;
  column_name: string;
}

async function textColumns(): Promise<Column[]> {
  const db = await testDatabase();
  return db.systemTx((tx) =>
    queryRows<Column>(
      tx,
      sql`SELECT c.table_name, c.column_name
          FROM information_schema.columns c
          JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
          WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
            AND c.data_type IN ('text', 'jsonb', 'json', 'ARRAY', 'character varying', 'inet')
          ORDER BY c.table_name, c.ordinal_position`,
    ),
  );
}

/** Identifiers (`id`, `*_id`) point at rows; they are not data about a person. */
const isIdentifier = (column: string) => column === 'id' || column.endsWith('_id');

describe('the personal-data inventory', () => {
  it('lists every table and classifies every text column of each', async () => {
    const columns = await textColumns();
    const db = await testDatabase();
    const tables = await db.systemTx((tx) =>
      queryRows<{ table_name: string }>(
        tx,
        sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      ),
    );
    const places = new Map(PERSONAL_DATA_PLACES.map((place) => [place.table, place]));
    const missingTables = tables.map((t) => t.table_name).filter((name) => !places.has(name));
    expect(missingTables, 'tables no feature declares in its personalData').toEqual([]);

    const unclassified = columns
      .filter((c) => !isIdentifier(c.column_name))
      .filter((c) => {
        const place = places.get(c.table_name);
        return !place?.personal.includes(c.column_name) && !place?.other.includes(c.column_name);
      })
      .map((c) => `${c.table_name}.${c.column_name}`);
    expect(unclassified, 'text columns neither personal nor other in a personalData place').toEqual([]);

    // And nothing listed that does not exist (a renamed column would hide there).
    const existing = new Set(columns.map((c) => `${c.table_name}.${c.column_name}`));
    const stale = PERSONAL_DATA_PLACES.flatMap((place) =>
      [...place.personal, ...place.other].map((column) => `${place.table}.${column}`),
    ).filter((name) => !existing.has(name));
    expect(stale, 'columns of a personalData place that the schema does not have').toEqual([]);
  });

  it('docs/privacy.md names every place holding personal data and what erasure does there', () => {
    const doc = readFileSync(new URL('../../../docs/privacy.md', import.meta.url), 'utf8');
    for (const place of PERSONAL_DATA_PLACES.filter((p) => p.personal.length > 0)) {
      expect(doc, place.table).toContain(`\`${place.table}\``);
      for (const column of place.personal) expect(doc, `${place.table}.${column}`).toContain(column);
    }
  });

  it('every personal place says how erasure treats it, and linked places are reachable from the contact', () => {
    for (const place of PERSONAL_DATA_PLACES) {
      if (place.personal.length > 0) expect(place.onErase, place.table).not.toBe('NONE');
      if (place.onErase === 'DELETED') expect(place.link, place.table).not.toBeNull();
    }
  });
});
