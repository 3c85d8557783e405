import { describe, expect, it } from 'vitest';
import {
  committedChecksums,
  compareChecksums,
  currentChecksums,
  type Checksum,
} from '../../scripts/lib/migration-checksums.ts';

const HOW_TO_ADD = 'add it with `npm run db:checksums` and commit db/migrations/checksums.txt';
const HOW_TO_FIX = 'landed migrations are never edited (STYLE.md): restore it and write a new migration instead';

describe('landed migrations are immutable (db/migrations/checksums.txt)', () => {
  const current = currentChecksums();
  const committed = committedChecksums();

  it('lists every .sql file and journal entry', () => {
    expect(current.length).toBeGreaterThan(0);
    expect(current.filter((c) => c.name.startsWith('journal:')).length).toBe(
      current.filter((c) => c.name.endsWith('.sql')).length,
    );
  });

  it('has a checksum line for every migration', () => {
    const { unlisted } = compareChecksums(current, committed);
    expect(unlisted.map((c) => c.name), `migrations without a checksum line: ${HOW_TO_ADD}`).toEqual([]);
  });

  it('finds every landed migration unchanged', () => {
    const { changed } = compareChecksums(current, committed);
    expect(changed, `landed migrations changed: ${HOW_TO_FIX}`).toEqual([]);
  });

  it('finds every landed migration still there', () => {
    const { missing } = compareChecksums(current, committed);
    expect(missing, `landed migrations disappeared: ${HOW_TO_FIX}`).toEqual([]);
  });

  it('lists each migration once', () => {
    const names = committed.map((c) => c.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });
});

describe('the comparison itself', () => {
  const landed: Checksum[] = [
    { name: '0000_a.sql', sha256: 'aa' },
    { name: 'journal:0000_a', sha256: 'bb' },
  ];

  it('reports an edited file, a deleted entry and a new file', () => {
    const now: Checksum[] = [
      { name: '0000_a.sql', sha256: 'a2' },
      { name: '0001_b.sql', sha256: 'cc' },
    ];
    expect(compareChecksums(now, landed)).toEqual({
      changed: ['0000_a.sql'],
      missing: ['journal:0000_a'],
      unlisted: [{ name: '0001_b.sql', sha256: 'cc' }],
    });
  });

  it('reports nothing when all match', () => {
    expect(compareChecksums(landed, landed)).toEqual({ changed: [], missing: [], unlisted: [] });
  });
});
