// RESO's Lookup resource (DD 2.0, for servers whose lookups are `Edm.String` with a LookupName
// annotation, decision 0258): one record per value each lookup field takes in our records, computed
// from the mapping, so what it lists is what the records and `$filter` use.
import { createHash } from 'node:crypto';
import { Errors } from '../../platform/errors/errors.ts';
import { LOOKUP_FIELD_TYPES, LOOKUP_VALUES, identifierOf } from './reso.fields.ts';
import { SERVICE_ROOT } from './reso.metadata.ts';

/**
 * When the lookup values last changed, and a digest of them: test/features/reso/reso-lookups.test.ts
 * recomputes the digest, so a change to the mapping cannot ship without a new timestamp (RESO clients
 * rebuild their caches of lookups from ModificationTimestamp).
 */
export const LOOKUPS_REVISION = {
  at: '2026-11-28T18:30:00.000000Z',
  digest: '540ee8ae77934c595524919d',
};

/** The digest LOOKUPS_REVISION must carry: 24 hex digits of SHA-256 over the values, in order. */
export function lookupsDigest(): string {
  return createHash('sha256').update(JSON.stringify(LOOKUP_VALUES)).digest('hex').slice(0, 24);
}

/** One Lookup record (DD 2.0's Lookup resource fields). */
export interface ResoLookup {
  LookupKey: string;
  LookupName: string;
  LookupValue: string;
  StandardLookupValue: string;
  LegacyODataValue: string;
  ModificationTimestamp: string;
}

/** Lookup's fields, in record order ($metadata's Lookup entity type). */
export const LOOKUP_FIELDS = Object.keys(LOOKUP_FIELD_TYPES) as (keyof ResoLookup)[];

/**
 * Every lookup value, by LookupName then the lookup's own order. Our values are DD 2.0's own display
 * names, so LookupValue and StandardLookupValue are the same; LegacyODataValue is the enum member form
 * (`Active Under Contract` -> `ActiveUnderContract`) that `$filter`'s enum literals take.
 */
export const LOOKUPS: readonly ResoLookup[] = Object.entries(LOOKUP_VALUES).flatMap(([name, values]) =>
  values.map((value) => ({
    LookupKey: `${name}.${identifierOf(value)}`,
    LookupName: name,
    LookupValue: value,
    StandardLookupValue: value,
    LegacyODataValue: identifierOf(value),
    ModificationTimestamp: LOOKUPS_REVISION.at,
  })),
);

/** The options GET /v1/reso/Lookup takes. */
export const LOOKUP_OPTIONS = ['$select', '$top', '$skip', '$count', '$format'] as const;

export interface LookupQuery {
  $select?: string;
  $top?: number;
  $skip?: number;
  $count?: boolean;
  $format?: string;
}

function selectOf(text: string | undefined): (keyof ResoLookup)[] | null {
  if (text === undefined || text.trim() === '*') return null;
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(LOOKUP_FIELDS as readonly string[]).includes(name)) {
      throw Errors.invalidField(
        'query.$select',
        `${name} is not a field of Lookup; it has ${LOOKUP_FIELDS.join(', ')}`,
      );
    }
  }
  return [...new Set(names)] as (keyof ResoLookup)[];
}

/**
 * GET /v1/reso/Lookup: the whole list (a few dozen records, the same for every organization), or the
 * `$skip`/`$top` window of it, with `@odata.nextLink` when more follow.
 */
export function listLookups(query: LookupQuery, origin: string) {
  const select = selectOf(query.$select);
  const skip = query.$skip ?? 0;
  const top = query.$top ?? LOOKUPS.length;
  const page = LOOKUPS.slice(skip, skip + top);
  const more = skip + top < LOOKUPS.length && top > 0;
  const fields = select === null ? '' : `(${select.join(',')})`;
  const kept = (['$select', '$count'] as const)
    .filter((name) => query[name] !== undefined)
    .map((name) => `${name}=${encodeURIComponent(String(query[name]))}`);
  return {
    '@odata.context': `${origin}${SERVICE_ROOT}/$metadata#Lookup${fields}`,
    ...(query.$count === true ? { '@odata.count': LOOKUPS.length } : {}),
    value: page.map((lookup) =>
      select === null ? lookup : Object.fromEntries(select.map((name) => [name, lookup[name]])),
    ),
    ...(more
      ? {
          '@odata.nextLink': `${origin}${SERVICE_ROOT}/Lookup?${[...kept, `$top=${top}`, `$skip=${skip + top}`].join('&')}`,
        }
      : {}),
  };
}
