import { createHash, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { base62Number, randomBase62 } from '../ids/ids.ts';

import type { KeyMode, KeyType } from '../../db/schema.ts';

export type { KeyMode, KeyType } from '../../db/schema.ts';

const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^service_(pk|sk)_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

function checksum(body: string): string {
  return base62Number(crc32(body), CHECKSUM_LENGTH);
}

export function keyPrefixFor(type: KeyType, mode: KeyMode): string {
  return `service_${type === 'publishable' ? 'pk' : 'sk'}_${mode}_`;
}

/**
 * A new key: typed prefix, 32 random base62 characters (~190 bits), then a 6-character CRC32
 * checksum so secret scanners (and our own auth) can reject lookalikes without a database hit.
 */
export function generateKey(type: KeyType, mode: KeyMode): string {
  const body = keyPrefixFor(type, mode) + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

export interface ParsedKey {
  kind: 'pk' | 'sk';
  mode: KeyMode;
}

/** Checks shape and checksum only; returns null for anything that cannot be one of our keys. */
export function parseKey(key: string): ParsedKey | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  const expected = Buffer.from(checksum(body));
  const actual = Buffer.from(match[4] ?? '');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
  return { kind: match[1] as 'pk' | 'sk', mode: match[2] as KeyMode };
}

/** The only form in which a key is stored: SHA-256, hex (keys carry ~190 random bits, no KDF needed). */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What listings show: the prefix plus the first 4 random characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, key.indexOf('_', 11) + 5);
}
