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

/** The digits libphonenumber reads: ASCII, full-width, Arabic-Indic and Eastern Arabic-Indic. */
const PHONE_DIGIT = '0-9\\uFF10-\\uFF19\\u0660-\\u0669\\u06F0-\\u06F9';
/** The fewest digits of a valid number in any country (Niue's, Saint Helena's, ...: 4 national digits). */
export const MIN_PHONE_DIGITS = 4;
/**
 * What JSON Schema can say of a phone `normalizePhone` accepts: at least MIN_PHONE_DIGITS digits
 * somewhere. libphonenumber finds the number inside other text ("tel: +34 612 345 678", "612345678
 * (mobile)"), so a whitelist of characters would refuse numbers the service accepts.
 */
export const PHONE_PATTERN = `^(?:[^${PHONE_DIGIT}]*[${PHONE_DIGIT}]){${MIN_PHONE_DIGITS}}`;
