import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// semver is npm's own range arithmetic (already in the tree through several dependencies).
const semver = createRequire(import.meta.url)('semver') as {
  subset(range: string, superset: string): boolean;
};

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, LockEntry>;
};

describe('engines (docs/decisions/0173-supported-node-lines.md)', () => {
  it('the lock file root states the same Node lines as package.json', () => {
    expect(lock.packages['']?.engines).toEqual(manifest.engines);
  });

  it('every locked package supports every Node version package.json promises, so npm prints no EBADENGINE', () => {
    const supported = manifest.engines.node;
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !Array.isArray(entry.engines) && entry.engines?.node)
      .filter(([, entry]) => !semver.subset(supported, (entry.engines as { node: string }).node))
      .map(([path, entry]) => `${path}@${entry.version}: ${(entry.engines as { node: string }).node}`);
    expect(refusing, `packages whose engines.node does not cover "${supported}"`).toEqual([]);
  });
});
