import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Encodes bytes as base62, left-padded to `length` characters. */
export function base62(bytes: Uint8Array, length: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(length, '0').slice(-length);
}

/** `count` uniformly random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(count: number): string {
  let out = '';
  while (out.length < count) {
    for (const byte of randomBytes(count * 2)) {
      if (byte < 248 && out.length < count) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/**
 * Prefixed, time-ordered identifiers (`org_…`, `key_…`, `evt_…`, `req_…`): 48 bits of milliseconds
 * then 80 random bits, base62. Readable in logs, and new rows land at the end of B-tree indexes.
 */
export type IdPrefix = 'org' | 'key' | 'evt' | 'req' | (string & {});

export function newId(prefix: IdPrefix): string {
  const bytes = new Uint8Array(16);
  const now = BigInt(Date.now());
  for (let i = 0; i < 6; i++) bytes[i] = Number((now >> BigInt(8 * (5 - i))) & 0xffn);
  bytes.set(randomBytes(10), 6);
  return `${prefix}_${base62(bytes, 22)}`;
}

const ID_PATTERN = /^[a-z]{2,5}_[0-9A-Za-z]{22}$/;

/** True for a well-formed id of the given prefix (checked before an id reaches SQL or RLS). */
export function isId(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
}
