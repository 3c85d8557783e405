import type { Tx } from '../../db/database.ts';
import { leads, visitRequests } from '../../db/schema.ts';

export type LeadRow = typeof leads.$inferSelect;
export type NewLead = typeof leads.$inferInsert;
export type VisitRequestRow = typeof visitRequests.$inferSelect;
export type NewVisitRequest = typeof visitRequests.$inferInsert;

export async function insertLead(tx: Tx, row: NewLead): Promise<LeadRow> {
  const rows = await tx.insert(leads).values(row).returning();
  return rows[0] as LeadRow;
}

export async function insertVisitRequest(tx: Tx, row: NewVisitRequest): Promise<VisitRequestRow> {
  const rows = await tx.insert(visitRequests).values(row).returning();
  return rows[0] as VisitRequestRow;
}
