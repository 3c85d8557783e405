import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linkedPhotoId } from '../../../src/features/properties/properties.photos.rules.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The derivation as first written (BigInt): ids are public and must never change. */
function reference(url: string, occurrence: number): string {
  let value = BigInt(`0x${createHash('sha256').update(`${url}\n${occurrence}`).digest('hex')}`);
  let out = '';
  while (out.length < 22) {
    out += BASE62[Number(value % 62n)];
    value /= 62n;
  }
  return `ph_${out}`;
}

describe("a linked photo's id", () => {
  it('is the one derived since photo ids exist, for any URL and occurrence, asked once or again', () => {
    const urls = [
      'https://cdn.example.com/a.jpg',
      'https://images.example.org/listing/123?w=1600&h=1200',
      'https://example.com/ñandú/foto 1.png',
      ...Array.from(
        { length: 300 },
        () => `https://cdn.example.com/${randomBytes(12).toString('base64url')}.jpg`,
      ),
    ];
    for (const url of urls) {
      for (const occurrence of [0, 1, 7]) {
        const expected = reference(url, occurrence);
        expect(linkedPhotoId(url, occurrence)).toBe(expected);
        // Asked again: still the same.
        expect(linkedPhotoId(url, occurrence)).toBe(expected);
      }
    }
    // A known value, so that a change of the reference itself shows too.
    expect(linkedPhotoId('https://cdn.example.com/a.jpg', 0)).toBe('ph_YlcNkz7R56Z9HLXcKfoqxc');
  });
});
