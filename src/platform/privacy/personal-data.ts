// Where personal data about a contact lives, and what erasure, merges and export do with each place
// (issue 21; docs/privacy.md). Each feature declares the places of its tables and its handover in its
// manifest (`personalData`); `installFeatures` fills the lists below in place, and the privacy feature
// reads them. test/features/privacy/inventory.test.ts fails when a table or text column is missing.
import type { Tx } from '../../db/database.ts';
import type { Actor } from '../events/catalog.ts';

/** What erasing a contact does to a table's rows about them. */
export type OnErase =
  /** The rows go with the contact (ON DELETE CASCADE). */
  | 'DELETED'
  /** The rows stay without the contact (link set to null) and their free text is redacted. */
  | 'UNLINKED_AND_REDACTED'
  /** Copies of the person's data inside the rows (JSON payloads, stored responses) are redacted. */
  | 'COPIES_REDACTED'
  /** The table holds no data about contacts. */
  | 'NONE';

export interface DataPlace {
  table: string;
  /** The column that links a row to the contact it is about, when there is one. */
  link: 'id' | 'contact_id' | 'deal_id' | null;
  /** Text columns that can hold personal data of a contact. */
  personal: readonly string[];
  /** The other text columns, looked at and holding none (codes, statuses, other people's data). */
  other: readonly string[];
  onErase: OnErase;
  /** In one sentence, for docs/privacy.md. */
  note: string;
}

/**
 * What happens to the records a contact has in other features when the contact goes (issue 21): merged
 * into another contact (`to`), or erased (`to` null, and `redact` rewrites the free texts that stay, e.g.
 * a deal titled with the person's name). Each feature hands over its own records and records its own
 * `*.updated` events, so mirrors see the link change.
 */
export interface ContactHandover {
  organizationId: string;
  from: string;
  to: string | null;
  redact: ((text: string) => string) | null;
  actor: Actor;
}

/** What a feature declares about the personal data its tables hold (its manifest's `personalData`). */
export interface PersonalData {
  /** Each of its tables, with its text columns classified. */
  places: readonly DataPlace[];
  /**
   * Its records that stay when a contact goes (an erasure) or moves (a merge), handed over; returns
   * how many. The erasure's and the merge's answers count them under `handover.name`.
   */
  handover?: { name: string; run(tx: Tx, handover: ContactHandover): Promise<number> };
}

/** Every place, in the features' order. */
export const PERSONAL_DATA_PLACES: DataPlace[] = [];
/** Every handover, in the features' order. */
export const CONTACT_HANDOVERS: NonNullable<PersonalData['handover']>[] = [];

/** Fills the lists from the features' declarations (installFeatures); the same list again changes nothing. */
export function definePersonalData(declared: readonly PersonalData[]): void {
  const places = declared.flatMap((data) => data.places);
  const tables = places.map((place) => place.table);
  const repeated = tables.filter((table, index) => tables.indexOf(table) !== index);
  if (repeated.length > 0) throw new Error(`personal data places declared twice: ${repeated.join(', ')}`);
  PERSONAL_DATA_PLACES.splice(0, PERSONAL_DATA_PLACES.length, ...places);
  const handovers = declared.flatMap((data) => (data.handover ? [data.handover] : []));
  CONTACT_HANDOVERS.splice(0, CONTACT_HANDOVERS.length, ...handovers);
}
