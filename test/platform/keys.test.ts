import { describe, expect, it } from 'vitest';
import { displayPrefix, generateKey, hashKey, parseKey } from '../../src/platform/auth/keys.ts';
import { isId, newId } from '../../src/platform/ids/ids.ts';

describe('API key format', () => {
  it.each([
    ['publishable', 'live', /^service_pk_live_[0-9A-Za-z]{38}$/],
    ['secret', 'live', /^service_sk_live_[0-9A-Za-z]{38}$/],
    ['read_only_secret', 'live', /^service_sk_live_[0-9A-Za-z]{38}$/],
    ['secret', 'test', /^service_sk_test_[0-9A-Za-z]{38}$/],
    ['publishable', 'test', /^service_pk_test_[0-9A-Za-z]{38}$/],
  ] as const)(
    'a %s %s key has its prefix, 32 random characters and a valid checksum',
    (type, mode, pattern) => {
      const key = generateKey(type, mode);
      expect(key).toMatch(pattern);
      expect(parseKey(key)).toEqual({ kind: type === 'publishable' ? 'pk' : 'sk', mode });
    },
  );

  it('rejects a lookalike: any changed character breaks the checksum', () => {
    const key = generateKey('secret', 'live');
    for (const position of [16, 30, 47, key.length - 1]) {
      const char = key[position] === 'A' ? 'B' : 'A';
      expect(
        parseKey(key.slice(0, position) + char + key.slice(position + 1)),
        `position ${position}`,
      ).toBeNull();
    }
    expect(parseKey(`${key}x`)).toBeNull();
    expect(parseKey(key.replace('service_sk_', 'service_xx_'))).toBeNull();
    expect(parseKey('')).toBeNull();
  });

  it('stores only a SHA-256 hex digest, and shows the prefix plus 4 characters', () => {
    const key = generateKey('secret', 'live');
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key)).not.toContain(key.slice(16, 48));
    expect(displayPrefix(key)).toBe(key.slice(0, 20));
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateKey('secret', 'live')));
    expect(keys.size).toBe(2000);
  });
});

describe('ids', () => {
  it('are prefixed, 22 base62 characters, unique and ordered by creation time', async () => {
    const first = newId('evt');
    await new Promise((resolve) => setTimeout(resolve, 2));
    const ids = Array.from({ length: 1000 }, () => newId('evt'));
    expect(first).toMatch(/^evt_[0-9A-Za-z]{22}$/);
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id > first, `${id} sorts after ${first}`).toBe(true);
    expect(isId(first, 'evt')).toBe(true);
    expect(isId(first, 'org')).toBe(false);
    expect(isId('evt_short', 'evt')).toBe(false);
  });

  it('made in a row sort in the order they were made, even within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => newId(i % 2 ? 'evt' : 'ct').replace(/^[a-z]+_/, ''));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
