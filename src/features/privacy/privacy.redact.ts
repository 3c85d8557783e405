// How a person's data is made unrecognisable where copies of it stay (issue 21, erasure).

/** What replaces an erased text. */
export const ERASED = '[erased]';

/** The person as the database knows them: what their copies are recognised by. */
export interface PersonIdentifiers {
  contactId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
}

/** Keys whose value is the person's own free text or contact detail wherever they appear in a copy. */
const CONTACT_DETAIL_KEYS = new Set(['email', 'emailKey', 'phone']);
const FREE_TEXT_KEYS = new Set([
  'message',
  'body',
  'renderedBody',
  'notes',
  'variables',
  'props',
  'label',
  'utm',
  'referrer',
  'criteria',
  'actorLabel',
  'companyId',
  'preferredCity',
  'externalId',
]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The texts the person is recognised by, longest first: full name, each name of 3 letters or more,
 * email, phone (as stored, E.164, and its digits alone).
 */
export function needlesOf(person: PersonIdentifiers): string[] {
  const names = [`${person.firstName} ${person.lastName}`.trim(), person.firstName, person.lastName];
  const phone = person.phone ? [person.phone, person.phone.replace(/\D/g, '')] : [];
  const all = [...names, ...(person.email ? [person.email] : []), ...phone].filter(
    (text) => text.length >= 3,
  );
  return [...new Set(all)].sort((a, b) => b.length - a.length);
}

/** The needles of several versions of a person (a contact and those merged into it), longest first. */
export function needlesOfAll(people: readonly PersonIdentifiers[]): string[] {
  return [...new Set(people.flatMap(needlesOf))].sort((a, b) => b.length - a.length);
}

/** The values that find a copy exactly: the contacts' ids, every email and phone they ever had. */
export function exactValuesOf(people: readonly PersonIdentifiers[]): string[] {
  const values = people.flatMap((person) => [person.contactId, person.email, person.phone]);
  return [...new Set(values.filter((value): value is string => !!value))];
}

/** A version of a contact read from a copy (an event's `data.contact`): what it is recognised by. */
export function personOfCopy(copy: Record<string, unknown>): PersonIdentifiers {
  const text = (name: string) => (typeof copy[name] === 'string' ? (copy[name] as string) : '');
  return {
    contactId: text('id'),
    firstName: text('firstName'),
    lastName: text('lastName'),
    email: text('email') || null,
    phone: text('phone') || null,
  };
}

/** A text with every occurrence of the person's names, email and phone replaced by `[erased]`. */
export function redactText(text: string, needles: readonly string[]): string {
  if (needles.length === 0) return text;
  const pattern = new RegExp(needles.map(escapeRegExp).join('|'), 'giu');
  return text.replace(pattern, ERASED);
}

/**
 * A JSON copy (an event's data, a stored response) made anonymous: the person's email and phone
 * become null, the person's free text (messages, notes, usage props...) becomes `[erased]` (objects
 * and arrays: emptied), every other text has their names, email and phone replaced. The shape stays,
 * so readers of the copy keep working.
 */
export function redactJson(value: unknown, needles: readonly string[], key?: string): unknown {
  // Theirs become null (the field stays valid for its schema); someone else's (an agent's) stay.
  if (key !== undefined && CONTACT_DETAIL_KEYS.has(key) && typeof value === 'string')
    return redactText(value, needles) === value ? value : null;
  if (key !== undefined && FREE_TEXT_KEYS.has(key)) {
    if (typeof value === 'string') return ERASED;
    if (Array.isArray(value)) return [];
    if (value !== null && typeof value === 'object') return {};
    return value;
  }
  if (typeof value === 'string') return redactText(value, needles);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, needles));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, redactJson(item, needles, name)]),
    );
  return value;
}
