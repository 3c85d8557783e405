import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from a pool refilled 4 KiB at a time: one crypto call per ~200 ids
// instead of one per id (ids are made on every request, so this is a hot path).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

/** `count` uniformly random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(count: number): string {
  let out = '';
  while (out.length < count) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** A non-negative integer below 2^53 in base62, left-padded to `length` characters. */
export function base62Number(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/**
 * Prefixed, time-ordered identifiers (`org_…`, `key_…`, `evt_…`, `req_…`): 9 base62 characters of
 * milliseconds (enough until the year 10 000) then 13 random ones (~77 bits). Readable in logs, and
 * new rows land at the end of B-tree indexes; the alphabet is in ASCII order, so ids sort by time.
 */
export type IdPrefix = 'org' | 'key' | 'evt' | 'req' | (string & {});

let lastMs = 0;
let lastRandom = '';

/** The base62 string one above `value` (same length; wraps to zeros only after 62^13 ids in a millisecond). */
function incrementBase62(value: string): string {
  const digits = [...value];
  for (let i = digits.length - 1; i >= 0; i--) {
    const next = ALPHABET.indexOf(digits[i] as string) + 1;
    if (next < ALPHABET.length) {
      digits[i] = ALPHABET[next] as string;
      return digits.join('');
    }
    digits[i] = ALPHABET[0] as string;
  }
  return digits.join('');
}

// Within one millisecond (or if the clock steps back) the random part counts up from the previous
// id, as ULID's monotonic mode does: ids made in order sort in order, so events recorded in one
// transaction (same created_at) keep the order they happened in.
export function newId(prefix: IdPrefix): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    lastRandom = randomBase62(13);
  } else {
    lastRandom = incrementBase62(lastRandom);
  }
  return `${prefix}_${base62Number(lastMs, 9)}${lastRandom}`;
}

const ID_PATTERN = /^[a-z]{2,5}_[0-9A-Za-z]{22}$/;

/** True for a well-formed id of the given prefix (checked before an id reaches SQL or RLS). */
export function isId(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`) && ID_PATTERN.test(value);
}
