import { sql } from 'drizzle-orm';
import type { Tx } from './database.ts';

/**
 * Runs `fn` inside a savepoint of the caller's transaction: when it throws, what it wrote (rows,
 * events, deferred triggers) is rolled back to the savepoint and the transaction goes on, usable;
 * the error is rethrown. One savepoint name is enough: calls never nest.
 */
export async function inSavepoint<T>(tx: Tx, fn: () => Promise<T>): Promise<T> {
  await tx.execute(sql`SAVEPOINT batch_item`);
  try {
    const result = await fn();
    await tx.execute(sql`RELEASE SAVEPOINT batch_item`);
    return result;
  } catch (error) {
    await tx.execute(sql`ROLLBACK TO SAVEPOINT batch_item`);
    throw error;
  }
}
