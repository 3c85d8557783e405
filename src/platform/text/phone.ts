import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { Errors } from '../errors/errors.ts';

/**
 * A phone number in E.164 (`+34612345678`), read as dialled in `defaultCountry` unless it starts
 * with `+`; null when it is not a possible number there. The `max` metadata validates number
 * ranges per country, so "123" or a landline-looking typo are refused rather than stored.
 */
export function toE164(raw: string, defaultCountry: string): string | null {
  const parsed = parsePhoneNumberFromString(raw, defaultCountry as CountryCode);
  if (!parsed || !parsed.isValid()) return null;
  return parsed.number;
}

/**
 * A phone number in E.164, read in the organization's default country; a 400 naming `field` when
 * it is not a valid number.
 */
export function normalizePhone(raw: string, defaultCountry: string, field = 'body.phone'): string {
  const e164 = toE164(raw, defaultCountry);
  if (!e164) {
    throw Errors.invalidField(
      field,
      `is not a valid phone number (use the international format, e.g. +34612345678, or a ${defaultCountry} number)`,
    );
  }
  return e164;
}
