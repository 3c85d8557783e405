// Masking of personal data in free text: the MCP results of an organization that asks for it
// (decision 0207) and the error messages kept in request logs (decision 0213) both go through here.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** `+34 612 34 56 78`, `+34612345678`, `+1 (415) 555-2671`: international numbers in free text. */
const INTERNATIONAL_PHONE_IN_TEXT = /\+\d(?:[ ().-]?\d){6,14}/g;
/**
 * National numbers in free text (`612 345 678`): 9 to 15 digits with only spaces or dots between
 * them. Dates (`2027-03-29`), times and prices (`420,000`, `1.250.000`) never have that many.
 */
const NATIONAL_PHONE_IN_TEXT = /(?<![\w+.-])\d(?:[ .]?\d){8,14}(?![\w-])/g;

/** Masks every digit of `text` except its first and its last two: `612 34 56 78` -> `6** ** ** 78`. */
function maskDigits(text: string): string {
  const digits = [...text].filter((char) => /\d/.test(char)).length;
  let seen = 0;
  return [...text]
    .map((char) => {
      if (!/\d/.test(char)) return char;
      seen += 1;
      return seen === 1 || seen > digits - 2 ? char : '*';
    })
    .join('');
}

/** `+34612345678` -> `+34 6** ** ** 78`: the country code, the first digit and the last two stay. */
export function maskPhone(value: string): string {
  const parsed = value.trim().startsWith('+') ? parsePhoneNumberFromString(value.trim()) : undefined;
  if (parsed) {
    const code = `+${parsed.countryCallingCode}`;
    const international = parsed.formatInternational();
    if (international.startsWith(`${code} `))
      return `${code} ${maskDigits(international.slice(code.length + 1))}`;
  }
  return maskDigits(value);
}

/** `lucia@example.com` -> `l***@example.com`: the first character and the domain stay. */
export function maskEmail(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 1) return '***';
  return `${value[0]}***${value.slice(at)}`;
}

/** Free text with the emails and phone numbers in it masked. */
export function maskText(text: string): string {
  return text
    .replace(EMAIL_IN_TEXT, maskEmail)
    .replace(INTERNATIONAL_PHONE_IN_TEXT, maskPhone)
    .replace(NATIONAL_PHONE_IN_TEXT, maskDigits);
}
