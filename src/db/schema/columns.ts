import { sql } from 'drizzle-orm';
import {
  numeric,
  timestamp,
} from 'drizzle-orm/pg-core';

/** Columns and conditions every table area shares. */
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });
export const PORTAL_VISIBLE = sql`status = 'ACTIVE' AND published_on_portal`;
