import { resolve, sep } from 'node:path';

/** Path segments of letters, digits, `.`, `_` and `-`, none of them `.` or `..`. */
const SAFE_KEY = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/** True when `key` can name an object: relative, `/`-separated, no traversal, no odd characters. */
export function isSafeKey(key: string): boolean {
  return key.length <= 512 && SAFE_KEY.test(key);
}

/** A key's file under `root`; throws for a key that is not safe (a bug of the caller, never input). */
export function fileOf(root: string, key: string): string {
  if (!isSafeKey(key)) throw new Error(`storage key ${JSON.stringify(key)} is not a safe relative path`);
  const base = resolve(root);
  const path = resolve(base, ...key.split('/'));
  if (!path.startsWith(base + sep)) throw new Error(`storage key ${JSON.stringify(key)} leaves the root`);
  return path;
}
