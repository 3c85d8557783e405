// The agency's developer console (issue 22). Glossary
// - console link: a one-time URL the operator mints for an organization (15 minutes, usable once);
//   opening it starts a console session. Only the token's SHA-256 is stored.
// - console session: what the console's HttpOnly cookie names (8 hours, revocable); its CSRF token is
//   derived from the cookie's token, so nothing else is stored.
// - request log: one line per /v1 and /mcp request of an organization (no bodies, no personal data),
//   written in batches off the request path, kept REQUEST_LOG_RETENTION_DAYS.
import { bigint, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';
import { tenantId } from './platform.ts';

export const consoleLinks = pgTable(
  'console_links',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('console_links_token_hash_key').on(t.tokenHash),
    index('console_links_organization_id_idx').on(t.organizationId),
    index('console_links_expires_at_idx').on(t.expiresAt),
  ],
);

export const consoleSessions = pgTable(
  'console_sessions',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    tokenHash: text('token_hash').notNull(),
    /** The link that started it. */
    linkId: text('link_id'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('console_sessions_token_hash_key').on(t.tokenHash),
    index('console_sessions_organization_id_idx').on(t.organizationId),
    index('console_sessions_expires_at_idx').on(t.expiresAt),
  ],
);

export const requestLogs = pgTable(
  'request_logs',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    organizationId: tenantId(),
    at: timestamp('at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    requestId: text('request_id').notNull(),
    keyId: text('key_id'),
    keyPrefix: text('key_prefix'),
    method: text('method').notNull(),
    /** The URL path, without the query string. */
    path: text('path').notNull(),
    operationId: text('operation_id'),
    /** The MCP tool a `tools/call` named. */
    mcpTool: text('mcp_tool'),
    status: integer('status').notNull(),
    /** The error envelope's `code` of a failure. */
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    latencyMs: integer('latency_ms').notNull(),
    ip: text('ip'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('request_logs_organization_id_at_idx').on(t.organizationId, t.at.desc(), t.id.desc()),
    index('request_logs_organization_id_request_id_idx').on(t.organizationId, t.requestId),
    // Status, key, path and operation filters read the organization's newest lines (7 days at most) by
    // the (organization_id, at) index: no index of their own, so each write maintains three (bench/README.md).
    // The retention purge takes the oldest first, across organizations: lines arrive in time order,
    // so a BRIN index (a few pages, next to nothing to maintain per row) finds them.
    index('request_logs_at_idx').using('brin', t.at),
  ],
);

export type ConsoleLinkRow = typeof consoleLinks.$inferSelect;
export type ConsoleSessionRow = typeof consoleSessions.$inferSelect;
export type RequestLogRow = typeof requestLogs.$inferSelect;
