// Spain's provinces by postal code (Kyero's <province>, decision 0256): the 52 codes and what is not one.
import { describe, expect, it } from 'vitest';
import { spanishProvinceOf } from '../../../src/features/feeds/feeds.provinces.ts';

describe('spanishProvinceOf', () => {
  it('names the province of the first two digits, 01 to 52', () => {
    expect(spanishProvinceOf('01001')).toBe('Álava');
    expect(spanishProvinceOf('03501')).toBe('Alicante');
    expect(spanishProvinceOf('07800')).toBe('Illes Balears');
    expect(spanishProvinceOf('28013')).toBe('Madrid');
    expect(spanishProvinceOf('29017')).toBe('Málaga');
    expect(spanishProvinceOf(' 38001 ')).toBe('Santa Cruz de Tenerife');
    expect(spanishProvinceOf('52001')).toBe('Melilla');
  });

  it('is null for anything that is not a Spanish postal code', () => {
    for (const code of [
      null,
      '',
      '00123',
      '53001',
      '99999',
      '2901',
      '290170',
      '1000-001',
      'SW1A 1AA',
      'abcde',
    ]) {
      expect(spanishProvinceOf(code), String(code)).toBeNull();
    }
  });
});
