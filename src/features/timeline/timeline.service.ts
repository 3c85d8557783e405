import type { Database } from '../../db/database.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId } from '../../platform/ids/ids.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import { findContactInTx } from '../contacts/index.ts';
import type { TimelineItem, TimelineQuery } from './timeline.schema.ts';
import * as store from './timeline.store.ts';

/**
 * GET /v1/contacts/{id}/timeline: everything that happened with a contact, newest first, one page.
 * Messages only for a key that may read conversations.
 */
export async function contactTimeline(db: Database, caller: Caller, contactId: string, query: TimelineQuery) {
  const organizationId = caller.organization.id;
  const page = pageRequest(query);
  return readAs(db, caller, async (tx) => {
    const contact = isId(contactId, 'ct') ? await findContactInTx(tx, organizationId, contactId) : null;
    if (!contact) throw Errors.notFound('Contact', contactId);
    const { rows, total } = await store.timelinePage(tx, organizationId, contactId, {
      ...page,
      messages: caller.scopes.includes('conversations:read'),
    });
    const data: TimelineItem[] = rows.map((row) => ({
      type: row.type,
      id: row.id,
      at: new Date(row.at).toISOString(),
      data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
    }));
    return { data, meta: pageMeta(total, page) };
  });
}
