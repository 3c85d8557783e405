import * as drizzle from 'drizzle-orm';
import { is, Param, Placeholder, sql } from 'drizzle-orm';
import type { Tx } from './database.ts';

/**
 * Binds one execution's values: a query built with `bind(value)` in place of every value compiles to
 * the same text and parameter list whatever the values, so it can be compiled once per shape. It
 * returns a placeholder, typed as the value so that it fits wherever the value would (`eq`, `limit`,
 * `sql` templates); `inline` is the same signature for queries built without a cache.
 */
export type Bind = <T>(value: T) => T;

export const inline: Bind = (value) => value;

/** The part of a Drizzle select builder a cached statement needs (what `await` runs). */
interface SelectBuilder<T> extends PromiseLike<T> {
  toSQL(): { sql: string; params: unknown[] };
}

/** A compiled select: its text and parameters (placeholders where values go) and how rows map back. */
interface Compiled {
  query: { sql: string; params: unknown[] };
  fields: unknown;
  joinsNotNullableMap: unknown;
}

/*
 * Drizzle 0.45 internals, in one place (pinned version; test/db/statements.test.ts covers them): a
 * select builder keeps its selection in `config.fields` and its nullable joins in
 * `joinsNotNullableMap`, and a session turns a compiled query into an executable one with
 * `prepareQuery` (what the builder's own `await` does after compiling).
 */
interface SelectInternals {
  config: { fields: Record<string, unknown> };
  joinsNotNullableMap: unknown;
}
interface SessionInternals {
  session: {
    prepareQuery(
      query: { sql: string; params: unknown[] },
      fields: unknown,
      name: string | undefined,
      isResponseInArrayMode: boolean,
    ): { joinsNotNullableMap?: unknown; execute(values: Record<string, unknown>): Promise<unknown> };
  };
}

// drizzle-orm's field ordering (its `orderSelectedFields`, exported at runtime but not typed).
const { orderSelectedFields } = drizzle as unknown as {
  orderSelectedFields(fields: Record<string, unknown>): unknown;
};

function compile(builder: SelectBuilder<unknown>): Compiled {
  const internals = builder as unknown as SelectInternals;
  return {
    query: builder.toSQL(),
    fields: orderSelectedFields(internals.config.fields),
    joinsNotNullableMap: internals.joinsNotNullableMap,
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
   * is bound. On in the test suite (vitest.config.ts), off in production.
   */
  verify?: boolean;
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
  private readonly verify: boolean;

  constructor(options: StatementCacheOptions = {}) {
    this.limit = options.limit ?? 256;
    this.verify = options.verify ?? process.env.AGENCY_VERIFY_STATEMENT_CACHE === '1';
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
    const prepared = session.prepareQuery(compiled.query, compiled.fields, undefined, true);
    prepared.joinsNotNullableMap = compiled.joinsNotNullableMap;
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
