import type { Database, Tx } from '../../db/database.ts';
import type { TaskRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { tombstoneOf } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import {
  listPage,
  listRequest,
  pageMeta,
  type ListMeta,
  type PageMeta,
  type PageRequest,
} from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { requireAppointmentRef } from '../appointments/index.ts';
import { TaskCreated, TaskDeleted, TaskUpdated } from './tasks.events.ts';
import type { CreateTaskBody, ListTasksQuery, Task, UpdateTaskBody } from './tasks.schema.ts';
import * as store from './tasks.store.ts';
import { isContactOf } from '../contacts/index.ts';
import { isAgentOf } from '../agents/index.ts';

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    type: row.type,
    status: row.status,
    dueAt: iso(row.dueAt),
    assigneeId: row.assigneeId,
    contactId: row.contactId,
    appointmentId: row.appointmentId,
    completedAt: iso(row.completedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function loadTask(tx: Tx, organizationId: string, id: string, lock = false): Promise<TaskRow> {
  const row = isId(id, 'task') ? await store.findTaskById(tx, organizationId, id, { lock }) : null;
  if (!row) throw Errors.notFound('Task', id);
  return row;
}

/** Every id the body references must be the organization's: a 400 naming the first field that is not. */
async function checkReferences(
  tx: Tx,
  organizationId: string,
  body: { assigneeId?: string | null; contactId?: string | null; appointmentId?: string | null },
): Promise<void> {
  if (typeof body.assigneeId === 'string') {
    if (!(await isAgentOf(tx, organizationId, body.assigneeId))) {
      throw Errors.invalidField('body.assigneeId', 'does not name an agent of this organization');
    }
  }
  if (typeof body.contactId === 'string') {
    if (!(await isContactOf(tx, organizationId, body.contactId))) {
      throw Errors.invalidField('body.contactId', 'does not name a contact of this organization');
    }
  }
  if (typeof body.appointmentId === 'string') {
    await requireAppointmentRef(tx, organizationId, body.appointmentId, 'body.appointmentId');
  }
}

/** `completedAt` follows the status: set when a task becomes DONE, kept while DONE, cleared otherwise. */
function completedAt(status: string, current: TaskRow | null, now: Date): Date | null {
  if (status !== 'DONE') return null;
  return current?.status === 'DONE' ? current.completedAt : now;
}

/**
 * Creates a task (PENDING TODO by default), recorded as the caller's (the operator in the back office, a
 * key through v1). Referenced ids must be the organization's.
 */
export async function createTask(db: Database, caller: Caller, body: CreateTaskBody): Promise<Task> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(db, caller, async (tx) => {
    await checkReferences(tx, organizationId, body);
    const status = body.status ?? 'PENDING';
    const row = await store.insertTask(tx, {
      id: newId('task'),
      organizationId,
      title: body.title.trim(),
      description: body.description ?? null,
      type: body.type ?? 'TODO',
      status,
      dueAt: body.dueAt ? new Date(body.dueAt) : null,
      assigneeId: body.assigneeId ?? null,
      contactId: body.contactId ?? null,
      appointmentId: body.appointmentId ?? null,
      completedAt: completedAt(status, null, new Date()),
    });
    const task = toTask(row);
    await recordEvent(tx, { type: TaskCreated.type, data: { task }, actor });
    return task;
  });
}

/** Applies the fields sent to a loaded task and records `task.updated` naming them. */
async function changeTask(
  tx: Tx,
  organizationId: string,
  current: TaskRow,
  body: UpdateTaskBody,
  actor: Actor,
): Promise<Task> {
  await checkReferences(tx, organizationId, body);
  const changes: Partial<store.NewTask> = {};
  if (body.title !== undefined) changes.title = body.title.trim();
  if (body.description !== undefined) changes.description = body.description;
  if (body.type !== undefined) changes.type = body.type;
  if (body.dueAt !== undefined) changes.dueAt = body.dueAt === null ? null : new Date(body.dueAt);
  if (body.assigneeId !== undefined) changes.assigneeId = body.assigneeId;
  if (body.contactId !== undefined) changes.contactId = body.contactId;
  if (body.appointmentId !== undefined) changes.appointmentId = body.appointmentId;
  if (body.status !== undefined) {
    changes.status = body.status;
    changes.completedAt = completedAt(body.status, current, new Date());
  }
  const row = await store.updateTask(tx, organizationId, current.id, changes);
  if (!row) throw Errors.notFound('Task', current.id);
  const task = toTask(row);
  await recordEvent(tx, {
    type: TaskUpdated.type,
    data: { task, changes: Object.keys(body).sort() },
    actor,
  });
  return task;
}

/** Changes some fields of a task, recorded as the caller's; DONE stamps `completedAt`, leaving DONE clears it. */
export async function updateTask(
  db: Database,
  caller: Caller,
  taskId: string,
  body: UpdateTaskBody,
): Promise<Task> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) =>
    changeTask(tx, organizationId, await loadTask(tx, organizationId, taskId, true), body, actorOf(caller)),
  );
}

/**
 * Marks a task DONE (stamping `completedAt`) as a PATCH `{status: DONE}` would, from PENDING or CANCELLED.
 * An already DONE task is answered as it is, with no write and no event (decision 0196): a retried
 * "done" is not a second completion.
 */
export async function completeTask(db: Database, caller: Caller, taskId: string): Promise<Task> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(db, caller, async (tx) => {
    // Locked so that two simultaneous completes record one event: the second waits, then sees DONE.
    const current = await loadTask(tx, organizationId, taskId, true);
    if (current.status === 'DONE') return toTask(current);
    return changeTask(tx, organizationId, current, { status: 'DONE' }, actor);
  });
}

/** Deletes a task for good, recording the `task.deleted` tombstone as the caller's. */
export async function deleteTask(
  db: Database,
  caller: Caller,
  taskId: string,
): Promise<{ id: string; deleted: true }> {
  const organizationId = caller.organization.id;
  const actor = actorOf(caller);
  return writeAs(db, caller, async (tx) => {
    const row = isId(taskId, 'task') ? await store.deleteTask(tx, organizationId, taskId) : null;
    if (!row) throw Errors.notFound('Task', taskId);
    await recordEvent(tx, { type: TaskDeleted.type, data: { task: tombstoneOf(row.id) }, actor });
    return { id: taskId, deleted: true as const };
  });
}

/** The filters and sort of a list query, parsed (dates) and checked (range in order). */
function listFilter(query: Omit<ListTasksQuery, 'page' | 'pageSize'>) {
  const filter: store.TaskFilter = {
    status: query.status,
    type: query.type,
    assigneeId: query.assigneeId,
    contactId: query.contactId,
  };
  if (query.dueAfter !== undefined) filter.dueAfter = parseDateOrDateTime(query.dueAfter, 'query.dueAfter');
  if (query.dueBefore !== undefined)
    filter.dueBefore = parseDateOrDateTime(query.dueBefore, 'query.dueBefore');
  if (filter.dueAfter && filter.dueBefore && filter.dueBefore.getTime() <= filter.dueAfter.getTime()) {
    throw Errors.invalidField('query.dueBefore', 'must be later than dueAfter');
  }
  const sort: store.TaskSort = { by: query.sortBy ?? 'dueAt', order: query.sortOrder ?? 'asc' };
  return { filter, sort };
}

async function pageOf(
  tx: Tx,
  organizationId: string,
  filter: store.TaskFilter,
  sort: store.TaskSort,
  page: PageRequest,
): Promise<{ data: Task[]; meta: PageMeta }> {
  const { items, total } = await store.listTasks(tx, organizationId, filter, sort, page);
  return { data: items.map(toTask), meta: pageMeta(total, page) };
}

/** A list query's page, or its cursor page (`updatedAfter`, `cursor`). */
async function listOf(
  tx: Tx,
  organizationId: string,
  query: ListTasksQuery,
): Promise<{ data: Task[]; meta: ListMeta }> {
  const { filter, sort } = listFilter(query);
  const request = listRequest(query, { list: 'tasks', organizationId });
  return listPage(
    request,
    {
      cursor: (keyset) => store.listTasksByUpdatedAt(tx, organizationId, filter, keyset),
      page: (page) => store.listTasks(tx, organizationId, filter, sort, page),
      total: 'exact',
    },
    toTask,
  );
}

/** The caller's organization's tasks, soonest due first by default, or a cursor page. */
export async function listTasks(db: Database, caller: Caller, query: ListTasksQuery) {
  return readAs(db, caller, (tx) => listOf(tx, caller.organization.id, query));
}

/** One task: 404 when malformed, unknown or another organization's. */
export async function findTask(db: Database, caller: Caller, id: string): Promise<Task> {
  return readAs(db, caller, async (tx) => toTask(await loadTask(tx, caller.organization.id, id)));
}

/** What the MCP tool `list_pending_tasks` filters on. */
export interface PendingTaskFilter {
  assigneeId?: string;
  /** dueAt strictly before; a date (YYYY-MM-DD) means its midnight UTC. */
  dueBefore?: Date | string;
}

/**
 * PENDING tasks, optionally of one assignee and due before an instant, soonest due first (undated
 * last); HTTP-free, for the MCP tools. A string bound is parsed like the API's (400 naming `dueBefore`).
 */
export async function listPendingTasks(
  db: Database,
  caller: Caller,
  filter: PendingTaskFilter,
  page: PageRequest,
): Promise<{ data: Task[]; meta: PageMeta }> {
  const organizationId = caller.organization.id;
  const dueBefore =
    typeof filter.dueBefore === 'string'
      ? parseDateOrDateTime(filter.dueBefore, 'dueBefore')
      : filter.dueBefore;
  return readAs(db, caller, (tx) =>
    pageOf(
      tx,
      organizationId,
      { status: 'PENDING', assigneeId: filter.assigneeId, dueBefore },
      { by: 'dueAt', order: 'asc' },
      page,
    ),
  );
}

/** Stores a task inside the caller's transaction (a booking's notification). Records no event. */
export async function insertTaskInTx(tx: Tx, row: store.NewTask): Promise<TaskRow> {
  return store.insertTask(tx, row);
}
