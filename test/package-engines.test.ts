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
  os?: string[];
  cpu?: string[];
}

/**
 * sharp's prebuilt binary for 32-bit Windows states ^20.9.0 only: Node publishes no 32-bit Windows build
 * after 22, and npm installs (and checks) that package on 32-bit Windows alone, a platform the service is
 * not run on (decision 0233). Every other platform package is held to the promise.
 */
const only32BitWindows = (entry: LockEntry) =>
  entry.os?.length === 1 && entry.os[0] === 'win32' && entry.cpu?.length === 1 && entry.cpu[0] === 'ia32';

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
      .filter(([, entry]) => !only32BitWindows(entry))
      .filter(([, entry]) => !semver.subset(supported, (entry.engines as { node: string }).node))
      .map(([path, entry]) => `${path}@${entry.version}: ${(entry.engines as { node: string }).node}`);
    expect(refusing, `packages whose engines.node does not cover "${supported}"`).toEqual([]);
  });
});
