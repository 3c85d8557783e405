import { FEATURES } from '../../src/features.ts';
import { eventCatalog } from '../../src/platform/events/catalog.ts';
import { installFeatures } from '../../src/platform/features/manifest.ts';

installFeatures(FEATURES);

/** Where docs/webhooks.md holds the table of event types, written from the catalog. */
export const START = '<!-- event-types:start (npm run docs:events) -->';
export const END = '<!-- event-types:end -->';

/** The first sentence of a description (up to the first ". " outside backticks, or the whole). */
function firstSentence(text: string): string {
  let inCode = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '`') inCode = !inCode;
    if (!inCode && text[i] === '.' && (text[i + 1] === ' ' || i === text.length - 1))
      return text.slice(0, i + 1);
  }
  return text;
}

/** The Markdown table of every catalog type with the first sentence of its description. */
export function eventTypesTable(): string {
  const rows = eventCatalog
    .list()
    .map((definition) => [
      `\`${definition.type}\``,
      firstSentence(definition.description).replaceAll('|', '\\|'),
    ])
    .sort(([a], [b]) => (a as string).localeCompare(b as string));
  const width = (column: 0 | 1) =>
    Math.max(column === 0 ? 4 : 4, ...rows.map((row) => (row[column] as string).length));
  const pad = (text: string, column: 0 | 1) => text.padEnd(width(column));
  return [
    `| ${pad('type', 0)} | ${pad('when', 1)} |`,
    `| ${'-'.repeat(width(0))} | ${'-'.repeat(width(1))} |`,
    ...rows.map(([type, when]) => `| ${pad(type as string, 0)} | ${pad(when as string, 1)} |`),
  ].join('\n');
}

/** The document with its table section replaced by the catalog's. */
export function withEventTypes(document: string): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/webhooks.md lacks the ${START} ... ${END} markers`);
  return `${document.slice(0, start + START.length)}\n\n${eventTypesTable()}\n\n${document.slice(end)}`;
}
