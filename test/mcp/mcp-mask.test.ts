/** The masking of personal data in MCP results (decision 0207), on values a tool can return. */
import { describe, expect, it } from 'vitest';
import { maskPersonalData } from '../../src/mcp/mcp.mask.ts';
import { maskEmail, maskPhone, maskText } from '../../src/platform/text/mask.ts';

describe('masking', () => {
  it('masks phone numbers: country code, first digit and last two stay', () => {
    expect(maskPhone('+34612345678')).toBe('+34 6** ** ** 78');
    expect(maskPhone('+14155552671')).toBe('+1 4** *** **71');
    expect(maskPhone('612 345 678')).toBe('6** *** *78');
  });

  it('masks emails: the first character and the domain stay', () => {
    expect(maskEmail('lucia.fernandez@example.com')).toBe('l***@example.com');
    expect(maskEmail('a@b.es')).toBe('a***@b.es');
    expect(maskEmail('not-an-email')).toBe('***');
  });

  it('masks personal data inside text and leaves dates, times, prices, codes and ids alone', () => {
    expect(maskText('Call +34 622 33 44 55 or 633 445 566, or write to jorge@example.org.')).toBe(
      'Call +34 6** ** ** 55 or 6** *** *66, or write to j***@example.org.',
    );
    for (const text of [
      'Visit on 2027-03-29T10:15:00.000Z at 18:00',
      'Budget 420,000 EUR or 1.250.000 EUR, 420000 at most',
      'Deal DL-000042 of contact CT-000042, ct_0VhJ3kQ2Zt8mX1pR4sT6uW',
    ])
      expect(maskText(text)).toBe(text);
  });

  it('walks objects and arrays: keys named like phone or email are masked whole, other values as text', () => {
    expect(
      maskPersonalData({
        data: [
          {
            id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uW',
            phone: '+34612345678',
            email: 'lucia@example.com',
            contactPhone: '+34612345679',
            ownerEmail: null,
            score: 35,
            optedOut: false,
            tags: ['call 612 345 678'],
          },
        ],
        meta: { total: 1 },
      }),
    ).toEqual({
      data: [
        {
          id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uW',
          phone: '+34 6** ** ** 78',
          email: 'l***@example.com',
          contactPhone: '+34 6** ** ** 79',
          ownerEmail: null,
          score: 35,
          optedOut: false,
          tags: ['call 6** *** *78'],
        },
      ],
      meta: { total: 1 },
    });
  });
});
