import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

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
