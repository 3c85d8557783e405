import { and, asc, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { keysetConditions, keysetOrder, keysetPosition, type Keyed, type Keyset } from '../../db/keyset.ts';
import { tasks, type TaskRow } from '../../db/schema.ts';

export type NewTask = typeof tasks.$inferInsert;

/** The list filters, already parsed by the service. Each one is served by an index (see the schema). */
export interface TaskFilter {
  status?: TaskRow['status'];
  type?: TaskRow['type'];
  assigneeId?: string;
  contactId?: string;
  dueAfter?: Date;
  dueBefore?: Date;
}

export interface TaskSort {
  by: 'dueAt' | 'createdAt';
  order: 'asc' | 'desc';
}

export async function insertTask(tx: Tx, row: NewTask): Promise<TaskRow> {
  const rows = await tx.insert(tasks).values(row).returning();
  return rows[0] as TaskRow;
}

/** One task; `lock` holds its row until the transaction ends (a change that depends on its status). */
export async function findTaskById(
  tx: Tx,
  organizationId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<TaskRow | null> {
  const query = tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.organizationId, organizationId), eq(tasks.id, id)))
    .limit(1);
  const rows = options.lock ? await query.for('update') : await query;
  return rows[0] ?? null;
}

export async function updateTask(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewTask>,
): Promise<TaskRow | null> {
  const rows = await tx
    .update(tasks)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(tasks.organizationId, organizationId), eq(tasks.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteTask(tx: Tx, organizationId: string, id: string): Promise<TaskRow | null> {
  const rows = await tx
    .delete(tasks)
    .where(and(eq(tasks.organizationId, organizationId), eq(tasks.id, id)))
    .returning();
  return rows[0] ?? null;
}

function taskConditions(organizationId: string, filter: TaskFilter): SQL[] {
  const where: SQL[] = [eq(tasks.organizationId, organizationId)];
  if (filter.status !== undefined) where.push(eq(tasks.status, filter.status));
  if (filter.type !== undefined) where.push(eq(tasks.type, filter.type));
  if (filter.assigneeId !== undefined) where.push(eq(tasks.assigneeId, filter.assigneeId));
  if (filter.contactId !== undefined) where.push(eq(tasks.contactId, filter.contactId));
  if (filter.dueAfter !== undefined) where.push(gte(tasks.dueAt, filter.dueAfter));
  if (filter.dueBefore !== undefined) where.push(lt(tasks.dueAt, filter.dueBefore));
  return where;
}

/** One page of the organization's tasks; tasks without dueAt come last, the id breaks ties. */
export async function listTasks(
  tx: Tx,
  organizationId: string,
  filter: TaskFilter,
  sort: TaskSort,
  page: { limit: number; offset: number },
): Promise<{ items: TaskRow[]; total: number }> {
  const condition = and(...taskConditions(organizationId, filter));
  const direction = sort.order === 'asc' ? asc : desc;
  const order =
    sort.by === 'createdAt'
      ? [direction(tasks.createdAt), direction(tasks.id)]
      : // NULLS LAST both ways: an undated task is never "soonest" nor "latest".
        [
          sql`${tasks.dueAt} ${sql.raw(sort.order === 'asc' ? 'ASC' : 'DESC')} NULLS LAST`,
          direction(tasks.id),
        ];
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(tasks)
      .where(condition)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(tasks).where(condition),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

/** A cursor page: the tasks matching `filter` after the keyset's position, oldest change first. */
export async function listTasksByUpdatedAt(
  tx: Tx,
  organizationId: string,
  filter: TaskFilter,
  keyset: Keyset,
): Promise<Keyed<TaskRow>[]> {
  const rows = await tx
    .select({ task: tasks, position: keysetPosition(tasks.updatedAt) })
    .from(tasks)
    .where(and(...taskConditions(organizationId, filter), ...keysetConditions(tasks, keyset)))
    .orderBy(...keysetOrder(tasks))
    .limit(keyset.limit);
  return rows.map(({ task, position }) => ({ row: task, key: { updatedAt: position, id: task.id } }));
}

/** A contact's tasks, locked for a handover (merge or erasure), by id. */
export async function lockTasksOfContact(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<TaskRow[]> {
  return tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.organizationId, organizationId), eq(tasks.contactId, contactId)))
    .orderBy(asc(tasks.id))
    .for('update');
}
