import type { ContactHandover } from '../../platform/privacy/personal-data.ts';

export type { ContactHandover } from '../../platform/privacy/personal-data.ts';

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
