import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { TransactionOptions, Tx } from './transaction.ts';

/**
 * A request's writes as one transaction (issue 37, decision 0246): while a unit is current (a POST
 * with an Idempotency-Key), the first writing transaction of the request begins with `record.begin`
 * (the key's claim), and does not commit when its work returns: it stays open, the request's later
 * transactions run inside it (savepoints, with their own role and tenant), and it commits when the
 * request ends, with `finish`'s last statement (the stored answer) in it. A crash at any point leaves
 * the effects and the record both, or neither.
 *
 * Effects outside the database (a message handed to a platform) are preceded by `checkpoint`: what is
 * open commits then, with the record's recovery point, and a retry resumes from that point (Stripe's
 * atomic phases) instead of running the request again.
 *
 * Without a current unit (every other request, the worker's jobs), transactions are as they were.
 */

type Transact = <T>(options: TransactionOptions, fn: (tx: Tx) => Promise<T>) => Promise<T>;

/** What the unit's record does inside the unit's transactions (the idempotency layer's claim). */
export interface UnitRecord {
  /**
   * First in every writing transaction the unit opens: `first` when nothing of the unit has committed
   * yet (claim the record), else the record is this unit's own (lock it and check it is still so).
   */
  begin(tx: Tx, first: boolean): Promise<void>;
  /** Last in a checkpoint's transaction: the recovery point a retry resumes from, and its data. */
  mark(tx: Tx, point: string, data: unknown): Promise<void>;
}

/** The request's end: `record` runs last in the open transaction before it commits; null rolls it back. */
export type Ending = ((tx: Tx) => Promise<void>) | null;

/** How long a unit's transaction may stay open after its work returned before it is rolled back. */
export const UNIT_OPEN_LIMIT_MS = 30_000;

class Rollback extends Error {
  constructor() {
    super('the unit of work was rolled back');
  }
}

interface OpenTransaction {
  tx: Tx;
  options: TransactionOptions;
  end: (ending: Ending) => void;
  outcome: Promise<void>;
}

const current = new AsyncLocalStorage<UnitOfWork>();

/** The unit of the request running now, if any. */
export function currentUnit(): UnitOfWork | undefined {
  const unit = current.getStore();
  return unit && !unit.closed ? unit : undefined;
}

export class UnitOfWork {
  closed = false;
  /** Whether a transaction of this unit committed (a checkpoint): the record is in the database. */
  private committed = false;
  private open: OpenTransaction | null = null;
  /** The request's own transactions, one at a time (a Promise.all in a handler). */
  private queue: Promise<unknown> = Promise.resolve();
  private savepoints = 0;
  private keepOnError = false;
  /** What undoes the open transaction's effects outside the database when it does not commit. */
  private undo: (() => Promise<void>)[] = [];

  constructor(
    private readonly record: UnitRecord,
    /** The recovery point a retry resumes from, with what it recorded; null for a new request. */
    readonly resumed: { point: string; data: unknown } | null = null,
  ) {
    this.committed = resumed !== null;
  }

  /** Runs `fn` (the route's handler) with this unit current. */
  run<T>(fn: () => T): T {
    return current.run(this, fn);
  }

  /** `db.transaction` while this unit is current. */
  transaction<T>(driver: Driver, options: TransactionOptions, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.inTurn(() => {
      if (this.open) return this.join(this.open, driver, options, fn);
      if (options.readOnly) return driver.transact(options, fn);
      return this.start(driver.transact, options, fn);
    });
  }

  /**
   * Before an effect outside the database: commits what is open, with the record's recovery point
   * (`point`, `data`) as its last statement. With nothing open nothing was written, and there is
   * nothing to resume from.
   */
  checkpoint(point: string, data: unknown): Promise<void> {
    return this.inTurn(async () => {
      if (!this.open) return;
      await this.settle(this.open, (tx) => this.record.mark(tx, point, data));
      this.committed = true;
    });
  }

  /** Whether the record is in the database: a checkpoint committed it, or this unit resumes one. */
  get recorded(): boolean {
    return this.committed;
  }

  /**
   * What is open commits even if the request fails (its answer is then not stored): the request
   * recorded a failure of an outside effect (a message the platform refused) that must stand.
   */
  keepIfFailed(): void {
    this.keepOnError = true;
  }

  /** Whether a failed request keeps what it wrote (see keepIfFailed). */
  get keepsIfFailed(): boolean {
    return this.keepOnError;
  }

  /**
   * The request's end: the open transaction commits with `ending` last (the stored answer, or the
   * record's release), or rolls back (null). Returns false when nothing was open (`ending` did not
   * run: the caller runs it alone). The unit is closed after: later transactions run as usual.
   */
  async finish(ending: Ending): Promise<boolean> {
    try {
      return await this.inTurn(async () => {
        const open = this.open;
        if (open === null) return false;
        await this.settle(open, ending);
        return true;
      });
    } finally {
      this.closed = true;
    }
  }

  private inTurn<T>(step: () => Promise<T>): Promise<T> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * `cleanup` runs if what is open now does not commit (rolled back, or its commit failed): files
   * written for rows that will not exist.
   */
  whenRolledBack(cleanup: () => Promise<void>): void {
    if (this.open) this.undo.push(cleanup);
  }

  /** Ends the open transaction: commits with `ending` last, or rolls back (null). */
  private async settle(open: OpenTransaction, ending: Ending): Promise<void> {
    this.open = null;
    const undo = this.undo;
    this.undo = [];
    open.end(ending);
    try {
      await open.outcome;
    } catch (error) {
      await Promise.allSettled(undo.map((cleanup) => cleanup()));
      if (ending === null && error instanceof Rollback) return;
      throw error;
    }
  }

  /** The unit's first writing transaction: it begins with the record and stays open once `fn` returns. */
  private start<T>(transact: Transact, options: TransactionOptions, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let answered = false;
      let end: (ending: Ending) => void = () => undefined;
      const ended = new Promise<Ending>((resolveEnd) => (end = resolveEnd));
      const outcome = transact(options, async (tx) => {
        // A driver runs a transaction that failed on a lost prepared statement again (decision 0243):
        // before the work answered that is safe; after, the answer given would not be this run's.
        if (answered) throw new Error('a unit of work cannot run its transaction again after answering');
        await this.record.begin(tx, !this.committed);
        const result = await fn(tx);
        this.open = { tx, options, end, outcome };
        answered = true;
        const limit = setTimeout(() => end(null), UNIT_OPEN_LIMIT_MS);
        limit.unref();
        resolve(result);
        const ending = await ended;
        clearTimeout(limit);
        if (ending === null) throw new Rollback();
        await ending(tx);
      });
      outcome.then(
        () => undefined,
        (error: unknown) => {
          if (!answered) reject(error);
        },
      );
    });
  }

  /** A transaction of the request inside the open one: a savepoint, with its own role and tenant. */
  private async join<T>(
    open: OpenTransaction,
    driver: Driver,
    options: TransactionOptions,
    fn: (tx: Tx) => Promise<T>,
  ): Promise<T> {
    const { tx } = open;
    const savepoint = `unit_${++this.savepoints}`;
    const switching = options.role !== open.options.role || options.organizationId !== open.options.organizationId;
    await tx.execute(sql.raw(`SAVEPOINT ${savepoint}`));
    try {
      if (switching) await apply(tx, driver.prelude(options));
      const result = await fn(tx);
      if (switching) await apply(tx, driver.prelude(open.options));
      await tx.execute(sql.raw(`RELEASE SAVEPOINT ${savepoint}`));
      return result;
    } catch (error) {
      // Undoes the work and its role and tenant (SET LOCAL inside a savepoint ends with it).
      await tx.execute(sql.raw(`ROLLBACK TO SAVEPOINT ${savepoint}`));
      throw error;
    }
  }

}

async function apply(tx: Tx, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await tx.execute(sql.raw(statement));
}

/** A driver's transaction, and the statements that set a role and tenant inside one already open. */
export interface Driver {
  transact: Transact;
  prelude: (options: TransactionOptions) => string[];
}

/** The driver's `transaction` made aware of the current unit (db/driver.ts). */
export function unitAware(driver: Driver): Transact {
  return (options, fn) => {
    const unit = currentUnit();
    return unit ? unit.transaction(driver, options, fn) : driver.transact(options, fn);
  };
}

/**
 * Before an effect outside the database (a call to a platform): what the request wrote commits now
 * with the recovery point `point` and its `data`, so a retry after a crash resumes there. Outside a
 * unit (no Idempotency-Key, a worker job) it does nothing.
 */
export async function checkpoint(point: string, data: unknown): Promise<void> {
  await currentUnit()?.checkpoint(point, data);
}

/** What was recorded at `point` when this request resumes from it (a retry after a crash); else null. */
export function resumedAt<T>(point: string): T | null {
  const resumed = currentUnit()?.resumed;
  return resumed && resumed.point === point ? (resumed.data as T) : null;
}

/**
 * Inside a transaction: `cleanup` runs if the request's unit does not commit it after all (see
 * UnitOfWork.whenRolledBack). Outside a unit the transaction commits when its work returns, and a
 * failure is the caller's to clean up, as before.
 */
export function whenRolledBack(cleanup: () => Promise<void>): void {
  currentUnit()?.whenRolledBack(cleanup);
}

/** What the request wrote stands even if it then fails (see UnitOfWork.keepIfFailed). */
export function keepIfFailed(): void {
  currentUnit()?.keepIfFailed();
}
