import type { Actor } from '../../platform/events/catalog.ts';

/**
 * What happens to the records a contact has in other features when the contact goes (issue 21):
 * merged into another contact (`to`), or erased (`to` null, and `redact` rewrites the free texts that
 * stay, e.g. a deal titled with the person's name). Each feature hands over its own records and
 * records its own `*.updated` events, so mirrors see the link change.
 */
export interface ContactHandover {
  organizationId: string;
  from: string;
  to: string | null;
  redact: ((text: string) => string) | null;
  actor: Actor;
}

/** The fields a handover changed on one record: the link, plus the texts it rewrote. */
export function handoverChanges(
  handover: ContactHandover,
  texts: Record<string, [string | null, string | null]>,
): { changes: string[]; values: Record<string, string | null> } {
  const changes = ['contactId'];
  const values: Record<string, string | null> = {};
  for (const [field, [before, after]] of Object.entries(texts)) {
    if (before === after) continue;
    changes.push(field);
    values[field] = after;
  }
  return { changes: changes.sort(), values };
}

/** `text` rewritten by the handover's redaction (null stays null). */
export function redacted(handover: ContactHandover, text: string | null): string | null {
  return text === null || handover.redact === null ? text : handover.redact(text);
}
