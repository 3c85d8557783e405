/**
 * Landed migrations never change (STYLE.md): db/migrations/checksums.txt holds one sha256 per
 * migration file and per journal entry, in the order they landed. The test
 * test/db/migrations.test.ts compares db/migrations with it; `npm run db:checksums` appends lines
 * for new migrations and never rewrites an existing one.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations', import.meta.url));
export const CHECKSUMS_FILE = join(MIGRATIONS_DIR, 'checksums.txt');

/** `<name>` is a .sql file's name, or `journal:<tag>` for that tag's entry in meta/_journal.json. */
export interface Checksum {
  name: string;
  sha256: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What db/migrations holds now: every .sql file, then every journal entry, each in order. */
export function currentChecksums(): Checksum[] {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sha256: sha256(readFileSync(join(MIGRATIONS_DIR, name), 'utf8')) }));
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  // An entry's JSON with its keys sorted: a reformatted journal keeps its checksums, a changed
  // `when` (which decides what drizzle applies) does not.
  const entries = journal.entries.map((entry) => ({
    name: `journal:${entry.tag}`,
    sha256: sha256(JSON.stringify(entry, Object.keys(entry).sort())),
  }));
  return [...files, ...entries];
}

/** The committed list: `<sha256>  <name>` per line; blank lines and `#` comments are skipped. */
export function committedChecksums(): Checksum[] {
  if (!existsSync(CHECKSUMS_FILE)) return [];
  return readFileSync(CHECKSUMS_FILE, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [sha, name] = line.split(/\s+/, 2);
      return { name: name ?? '', sha256: sha ?? '' };
    });
}

export function formatLine(checksum: Checksum): string {
  return `${checksum.sha256}  ${checksum.name}`;
}

export interface ChecksumReport {
  /** Landed (listed) but changed: the migration was edited. */
  changed: string[];
  /** Listed but gone: a landed migration was deleted or renamed. */
  missing: string[];
  /** Present without a line: a new migration, to be added with `npm run db:checksums`. */
  unlisted: Checksum[];
}

export function compareChecksums(current: Checksum[], committed: Checksum[]): ChecksumReport {
  const now = new Map(current.map((c) => [c.name, c.sha256]));
  const listed = new Set(committed.map((c) => c.name));
  return {
    changed: committed.filter((c) => now.has(c.name) && now.get(c.name) !== c.sha256).map((c) => c.name),
    missing: committed.filter((c) => !now.has(c.name)).map((c) => c.name),
    unlisted: current.filter((c) => !listed.has(c.name)),
  };
}
