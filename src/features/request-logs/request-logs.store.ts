import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { countMatches, type Tx } from '../../db/database.ts';
import { requestLogs, type RequestLogRow } from '../../db/schema.ts';
import { likeLiteral } from '../../platform/text/fold.ts';

export interface RequestLogFilter {
  /** One status, or a class as its lowest and highest (`4xx` is 400..499). */
  status?: { from: number; to: number };
  keyId?: string;
  pathPrefix?: string;
  requestId?: string;
  operationId?: string;
  since?: Date;
  until?: Date;
}

/** Lines of these organizations, newest first (the (organization_id, at, id) index), with their total. */
export async function listRequestLogs(
  tx: Tx,
  organizationIds: readonly string[],
  filter: RequestLogFilter,
  page: { limit: number; offset: number },
): Promise<{ items: RequestLogRow[]; total: number }> {
  const conditions: (SQL | undefined)[] = [inArray(requestLogs.organizationId, [...organizationIds])];
  if (filter.status) {
    conditions.push(
      filter.status.from === filter.status.to
        ? eq(requestLogs.status, filter.status.from)
        : sql`${requestLogs.status} BETWEEN ${filter.status.from} AND ${filter.status.to}`,
    );
  }
  if (filter.keyId !== undefined) conditions.push(eq(requestLogs.keyId, filter.keyId));
  if (filter.pathPrefix !== undefined)
    conditions.push(sql`${requestLogs.path} LIKE ${`${likeLiteral(filter.pathPrefix)}%`}`);
  if (filter.requestId !== undefined) conditions.push(eq(requestLogs.requestId, filter.requestId));
  if (filter.operationId !== undefined) conditions.push(eq(requestLogs.operationId, filter.operationId));
  if (filter.since !== undefined) conditions.push(gte(requestLogs.at, filter.since));
  if (filter.until !== undefined) conditions.push(lt(requestLogs.at, filter.until));
  const where = and(...conditions);
  const [items, total] = await Promise.all([
    tx
      .select()
      .from(requestLogs)
      .where(where)
      .orderBy(desc(requestLogs.at), desc(requestLogs.id))
      .limit(page.limit)
      .offset(page.offset),
    countMatches(tx, requestLogs, where),
  ]);
  return { items, total };
}
