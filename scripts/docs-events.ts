/**
 * `npm run docs:events`: writes the table of event types in docs/webhooks.md from the event catalog
 * (each type and the first sentence of its description), so the guide lists every type the service
 * sends. `-- --check` writes nothing and exits 1 when the table is out of date (test/platform/events.test.ts
 * checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withEventTypes } from './lib/event-types-doc.ts';

const DOC = fileURLToPath(new URL('../docs/webhooks.md', import.meta.url));
const current = readFileSync(DOC, 'utf8');
const fresh = withEventTypes(current);
if (process.argv.includes('--check')) {
  if (fresh !== current) {
    process.stderr.write(
      'docs/webhooks.md lists other event types than the catalog: run `npm run docs:events`.\n',
    );
    process.exitCode = 1;
  }
} else {
  writeFileSync(DOC, fresh);
  process.stdout.write('Wrote the event types of docs/webhooks.md.\n');
}
