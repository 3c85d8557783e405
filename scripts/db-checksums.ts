/**
 * `npm run db:checksums`: appends to db/migrations/checksums.txt a line for every migration file
 * and journal entry that has none yet (run it after `drizzle-kit generate`, commit both). It never
 * rewrites an existing line: when a landed migration changed or disappeared it exits 1 and says
 * which; write a new migration instead (STYLE.md: migrations are never edited once landed).
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import {
  CHECKSUMS_FILE,
  committedChecksums,
  compareChecksums,
  currentChecksums,
  formatLine,
} from './lib/migration-checksums.ts';

const report = compareChecksums(currentChecksums(), committedChecksums());
if (!existsSync(CHECKSUMS_FILE)) {
  writeFileSync(
    CHECKSUMS_FILE,
    '# sha256 of every landed migration and journal entry; appended by `npm run db:checksums`, never edited.\n',
  );
}
if (report.unlisted.length > 0) {
  appendFileSync(CHECKSUMS_FILE, report.unlisted.map((c) => formatLine(c) + '\n').join(''));
}
for (const c of report.unlisted) console.log(`added ${c.name}`);
if (report.unlisted.length === 0) console.log('db/migrations/checksums.txt lists every migration.');
const broken = [...report.changed.map((n) => `changed: ${n}`), ...report.missing.map((n) => `missing: ${n}`)];
if (broken.length > 0) {
  console.error(
    `Landed migrations differ from db/migrations/checksums.txt (restore them; put changes in a new migration):\n  ${broken.join('\n  ')}`,
  );
  process.exit(1);
}
