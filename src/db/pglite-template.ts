import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_FOLDER } from './driver.ts';

/**
 * A new embedded database starts from a copy of a freshly migrated one (decision 0260). Creating a
 * PGlite cluster (initdb inside WebAssembly) and applying the migrations cost a new DATA_DIR ~8 s of
 * CPU, paid again by every `npm start` on an empty directory (the tour, Prism, the MCP check, the
 * tests of `npm start`); loading a tarball of the same cluster, ~2 s. A new in-memory database made
 * the long way is saved here (one on disk never is: its dump would hold the lock and the secrets key);
 * the next new ones, in memory or on disk, load it.
 *
 * The copy is keyed by everything that shapes it: the PGlite release, its extensions and every
 * migration file, so a new migration or PGlite makes a new one. It holds no rows (it is saved right
 * after the migrations, before any start step or seed runs), no keys and no secrets: it is what any
 * checkout's migrations make. It lives in node_modules/.cache (the tools' usual place, emptied by
 * `npm ci`); where that cannot be written, nothing is saved and every start is the long way.
 */

const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/agency-crm/', import.meta.url));

/** The installed PGlite's version (its package.json is not exported: found from its entry point). */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
    if (name === '@electric-sql/pglite' && version) return version;
  }
  throw new Error('cannot find the installed @electric-sql/pglite version');
}

/** The file a migrated cluster of this PGlite, these extensions and these migrations is saved as. */
export function templatePath(extensions: readonly string[], cacheDir = CACHE_DIR): string {
  const hash = createHash('sha256');
  hash.update(`pglite ${pgliteVersion()}\nextensions ${[...extensions].sort().join(',')}\n`);
  for (const folder of [MIGRATIONS_FOLDER, join(MIGRATIONS_FOLDER, 'meta')]) {
    for (const name of readdirSync(folder).sort()) {
      if (!name.endsWith('.sql') && name !== '_journal.json') continue;
      hash.update(`${name}\n`).update(readFileSync(join(folder, name)));
    }
  }
  return join(cacheDir, `pglite-migrated-${hash.digest('hex').slice(0, 32)}.tar`);
}

/** The saved copy, when there is one. */
export function readTemplate(path: string): Blob | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return new Blob([readFileSync(path)]);
  } catch {
    return undefined;
  }
}

/** Saves a migrated cluster's tarball; whole or not at all (a rename), and silently not where it cannot. */
export function saveTemplate(path: string, tarball: Uint8Array): void {
  const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(partial, tarball);
    renameSync(partial, path);
  } catch {
    rmSync(partial, { force: true });
  }
}

/** What the service itself keeps in DATA_DIR beside the cluster (src/db/database.ts, the secrets key). */
const OWN_FILES = new Set(['agency-crm.lock', 'secrets.key']);

/** Whether `dataDir` holds nothing but the service's own files: no cluster, nothing of anyone else. */
export function isEmptyDataDir(dataDir: string): boolean {
  return readdirSync(dataDir).every((name) => OWN_FILES.has(name));
}

/** Empties a data directory a template failed to load into (it was empty but for the service's files). */
export function clearDataDir(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (!OWN_FILES.has(name)) rmSync(join(dataDir, name), { recursive: true, force: true });
  }
}
