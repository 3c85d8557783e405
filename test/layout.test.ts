/**
 * The tests mirror the code (issue 38): a feature's tests live in test/features/<name>, named as its
 * src/features/<name>; what is not a feature is tested beside its own folder (test/cli, test/mcp,
 * test/platform, ...).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);

/** The names of the folders directly in `path` (relative to the repository), sorted. */
function folders(path: string): string[] {
  return readdirSync(new URL(path, root), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

describe('test/features mirrors src/features', () => {
  it('has a folder of the same name for every feature, and no other', () => {
    const features = folders('src/features/');
    const tested = folders('test/features/');
    const untested = features.filter((name) => !tested.includes(name));
    const strays = tested.filter((name) => !features.includes(name));
    expect(
      untested,
      `src/features/{${untested.join(',')}} without a test/features folder of the same name`,
    ).toEqual([]);
    expect(
      strays,
      `test/features/{${strays.join(',')}} named after no src/features folder (test/<folder> mirrors src/<folder>)`,
    ).toEqual([]);
  });

  it('has at least one *.test.ts file in every test/features folder', () => {
    const empty = folders('test/features/').filter(
      (name) =>
        !readdirSync(new URL(`test/features/${name}/`, root), { recursive: true }).some((file) =>
          String(file).endsWith('.test.ts'),
        ),
    );
    expect(empty, `test/features/{${empty.join(',')}} without a *.test.ts file`).toEqual([]);
  });
});
