import type { Tx } from '../../db/database.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { isId } from '../../platform/ids/ids.ts';
import { findContactInTx } from '../contacts/index.ts';
import { PERSONAL_DATA_PLACES, type DataPlace } from '../../platform/privacy/personal-data.ts';
import * as store from './privacy.store.ts';

/** A data-subject access export: the person, and every record held about them by place. */
export interface ContactExport {
  contactId: string;
  generatedAt: string;
  /** Places (tables, see docs/privacy.md) to their rows, oldest first; a place with none is an empty list. */
  records: Record<string, Record<string, unknown>[]>;
  /** Where copies of these records also live for a while, and for how long. */
  copies: { place: string; note: string }[];
}

const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * Every record held about the contact (GDPR art. 15), read from the places the features declare
 * (their manifests' `personalData`), in the caller's transaction: one consistent snapshot. 404 for another organization's contact.
 */
export async function exportContactInTx(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<ContactExport> {
  const contact = isId(contactId, 'ct') ? await findContactInTx(tx, organizationId, contactId) : null;
  if (!contact) throw Errors.notFound('Contact', contactId);
  const records: ContactExport['records'] = {};
  const linked = PERSONAL_DATA_PLACES.filter(
    (place): place is DataPlace & { link: 'id' | 'contact_id' | 'deal_id' } => place.link !== null,
  );
  for (const place of linked)
    records[camel(place.table)] = await store.rowsAbout(tx, organizationId, place, contactId);
  return {
    contactId,
    generatedAt: new Date().toISOString(),
    records,
    copies: PERSONAL_DATA_PLACES.filter((place) => place.onErase === 'COPIES_REDACTED').map((place) => ({
      place: camel(place.table),
      note: place.note,
    })),
  };
}
