import { isDeepStrictEqual } from 'node:util';
import * as drizzle from 'drizzle-orm';
import { Column, getTableName, is, Param, Placeholder, SQL, sql, Subquery } from 'drizzle-orm';
import type { Tx } from './database.ts';

/**
 * Binds one execution's values: a query built with `bind(value)` in place of every value compiles to
 * the same text and parameter list whatever the values, so it can be compiled once per shape. It
 * returns a placeholder, typed as the value so that it fits wherever the value would (`eq`, `limit`,
 * `sql` templates); `inline` is the same signature for queries built without a cache.
 */
export type Bind = <T>(value: T) => T;

/**
 * An array is one parameter (`= ANY($1::text[])`, `@> $1::text[]`), as it is when bound to a
 * placeholder: left bare in a `sql` template, Drizzle would expand it into a list `($1, $2)`, which is
 * no array (found by the long fuzz run: a 500 on an empty page past the first with two amenity flags).
 */
export const inline: Bind = (value) => (Array.isArray(value) ? (sql.param(value) as unknown as typeof value) : value);

/** The part of a Drizzle select builder a cached statement needs (what `await` runs). */
interface SelectBuilder<T> extends PromiseLike<T> {
  toSQL(): { sql: string; params: unknown[] };
}

/** A compiled select: its text and parameters (placeholders where values go) and how rows map back. */
interface Compiled {
  query: { sql: string; params: unknown[] };
  fields: SelectedField[];
  joinsNotNullableMap: Record<string, boolean> | undefined;
  mapRows: (rows: unknown[][]) => unknown[];
}

/** One selected column: where it goes in the result object, and what decodes it. */
interface SelectedField {
  path: string[];
  field: unknown;
}

/*
 * Drizzle 0.45 internals, in one place (pinned version; test/db/statements.test.ts covers them): a
 * select builder keeps its selection in `config.fields` and its nullable joins in
 * `joinsNotNullableMap`, and a session turns a compiled query into an executable one with
 * `prepareQuery` (what the builder's own `await` does after compiling), rows mapped by the
 * `customResultMapper` given to it.
 */
interface SelectInternals {
  config: { fields: Record<string, unknown> };
  joinsNotNullableMap: Record<string, boolean> | undefined;
}
interface SessionInternals {
  session: {
    prepareQuery(
      query: { sql: string; params: unknown[] },
      fields: unknown,
      name: string | undefined,
      isResponseInArrayMode: boolean,
      customResultMapper: (rows: unknown[][]) => unknown[],
    ): { execute(values: Record<string, unknown>): Promise<unknown> };
  };
}

// drizzle-orm's field ordering and row mapping (exported at runtime but not typed).
const { orderSelectedFields, mapResultRow } = drizzle as unknown as {
  orderSelectedFields(fields: Record<string, unknown>): SelectedField[];
  mapResultRow(fields: SelectedField[], row: unknown[], joinsNotNullableMap: unknown): unknown;
};

interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}

/** The decoder drizzle's `mapResultRow` picks for a selected field (an SQL's is internal, hence the casts). */
function decoderOf(field: unknown): Decoder {
  const sqlDecoder = (value: unknown) => (value as { decoder: Decoder }).decoder;
  if (is(field, Column)) return field;
  if (is(field, SQL)) return sqlDecoder(field);
  if (is(field, Subquery)) return sqlDecoder((field as unknown as { _: { sql: SQL } })._.sql);
  return sqlDecoder((field as { sql: SQL }).sql);
}

/**
 * drizzle's `mapResultRow` with its per-cell work done once per shape: which decoder each column
 * has, where it goes, and which nested objects a left join may null (a joined table's object is
 * null when all its columns are). Mapping rows was ~10 % of a listing's CPU, mostly `is()` checks
 * repeated for every cell; the verify mode compares the result with drizzle's own mapping.
 */
function rowMapper(
  fields: SelectedField[],
  joinsNotNullableMap: Record<string, boolean> | undefined,
): (row: unknown[]) => Record<string, unknown> {
  const columns = fields.map(({ path, field }) => ({
    path,
    decoder: decoderOf(field),
    // The table whose nullness may null `path[0]` (drizzle's rule: a column directly in an object).
    nullableTable:
      joinsNotNullableMap && is(field, Column) && path.length === 2 ? getTableName(field.table) : undefined,
  }));
  return (row) => {
    const result: Record<string, unknown> = {};
    const nullify: Record<string, string | false> = {};
    for (let index = 0; index < columns.length; index++) {
      const { path, decoder, nullableTable } = columns[index]!;
      let node = result;
      for (let depth = 0; depth < path.length - 1; depth++) {
        const chunk = path[depth]!;
        node = (node[chunk] ??= {}) as Record<string, unknown>;
      }
      const raw = row[index];
      const value = raw === null ? null : decoder.mapFromDriverValue(raw);
      node[path[path.length - 1]!] = value;
      if (nullableTable !== undefined) {
        const objectName = path[0]!;
        const seen = nullify[objectName];
        if (seen === undefined) nullify[objectName] = value === null ? nullableTable : false;
        else if (typeof seen === 'string' && seen !== nullableTable) nullify[objectName] = false;
      }
    }
    for (const objectName in nullify) {
      const table = nullify[objectName];
      if (typeof table === 'string' && !joinsNotNullableMap?.[table]) result[objectName] = null;
    }
    return result;
  };
}

function compile(builder: SelectBuilder<unknown>): Compiled {
  const internals = builder as unknown as SelectInternals;
  const fields = orderSelectedFields(internals.config.fields);
  const mapRow = rowMapper(fields, internals.joinsNotNullableMap);
  return {
    query: builder.toSQL(),
    fields,
    joinsNotNullableMap: internals.joinsNotNullableMap,
    mapRows: (rows) => rows.map(mapRow),
  };
}

/** Parameters as comparable values: placeholders by name, bound values by value. */
function paramsKey(params: unknown[]): string {
  return JSON.stringify(
    params.map((p) => {
      if (is(p, Placeholder)) return { placeholder: p.name };
      if (is(p, Param)) return is(p.value, Placeholder) ? { placeholder: p.value.name } : { value: p.value };
      return { value: p };
    }),
  );
}

export interface StatementCacheOptions {
  /** Shapes kept; past this, further shapes are compiled on every call (the set is bounded). */
  limit?: number;
  /**
   * Also compiles on every call and throws if the text or the bound (non-placeholder) parameters
   * differ from the cached ones: proves in tests that a key names every shape and that every value
   * is bound. Unset: follows `verifyStatementCaches` (on in the test suite, off in production).
   */
  verify?: boolean;
}

/** Whether caches built without a `verify` option verify; the test setup turns it on for every cache. */
let verifyByDefault = false;

/** Makes every statement cache without its own `verify` option verify its shapes (the tests do). */
export function verifyStatementCaches(enabled: boolean): void {
  verifyByDefault = enabled;
}

/**
 * Select statements compiled once per shape. Compiling a Drizzle query (walking its SQL tree into
 * text) costs more CPU than everything else a portal listing does in Node (bench/README.md, CPU
 * profile): a list endpoint whose filters are optional builds a handful of shapes, so each is
 * compiled once and executed with its values bound by name.
 *
 * The caller names the shape (`key`: everything that changes the text, such as which filters are
 * present and the sort) and builds the query with `bind(value)` for every value. The builder still
 * runs on each call to collect the values; only the compilation is saved.
 */
export class StatementCache {
  private readonly compiled = new Map<string, Compiled>();
  private readonly limit: number;
  private readonly verifyOption: boolean | undefined;

  constructor(options: StatementCacheOptions = {}) {
    this.limit = options.limit ?? 256;
    this.verifyOption = options.verify;
  }

  private get verify(): boolean {
    return this.verifyOption ?? verifyByDefault;
  }

  get size(): number {
    return this.compiled.size;
  }

  async select<T>(tx: Tx, key: string, build: (bind: Bind) => SelectBuilder<T>): Promise<T> {
    const values: Record<string, unknown> = {};
    let next = 0;
    const bind = (<T>(value: T): T => {
      const name = `p${next++}`;
      values[name] = value;
      return sql.placeholder(name) as unknown as T;
    }) satisfies Bind;
    const builder = build(bind);
    let compiled = this.compiled.get(key);
    if (compiled === undefined || this.verify) {
      const fresh = compile(builder);
      if (compiled !== undefined) assertSameShape(key, compiled, fresh);
      compiled ??= fresh;
      if (this.compiled.size < this.limit) this.compiled.set(key, compiled);
    }
    const { session } = tx as unknown as SessionInternals;
    const { query, fields, joinsNotNullableMap, mapRows } = compiled;
    const mapper = this.verify
      ? (rows: unknown[][]) => {
          const mapped = mapRows(rows);
          const byDrizzle = rows.map((row) => mapResultRow(fields, row, joinsNotNullableMap));
          if (!isDeepStrictEqual(mapped, byDrizzle))
            throw new Error(`statement shape "${key}" mapped rows unlike drizzle: ${JSON.stringify(mapped)}`);
          return mapped;
        }
      : mapRows;
    const prepared = session.prepareQuery(query, fields, undefined, true, mapper);
    return (await prepared.execute(values)) as T;
  }
}

function assertSameShape(key: string, cached: Compiled, fresh: Compiled): void {
  if (cached.query.sql !== fresh.query.sql) {
    throw new Error(`statement shape "${key}" compiled to another text:\n${cached.query.sql}\n${fresh.query.sql}`);
  }
  const [before, now] = [paramsKey(cached.query.params), paramsKey(fresh.query.params)];
  if (before !== now) {
    throw new Error(`statement shape "${key}" has an unbound value (bind every value):\n${before}\n${now}`);
  }
}
