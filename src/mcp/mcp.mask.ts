// The organization setting `mcpMaskPersonalData` (issue 21, decision 0207): when it is on, every MCP
// tool result goes through here once, whatever tool made it, so a new tool cannot forget it.
import { maskEmail, maskPhone, maskText } from '../platform/text/mask.ts';

/** Keys whose string value is a phone number or an email as a whole: `phone`, `email`, `contactPhone`... */
const PERSONAL_KEY = /(phone|email)$/i;

/**
 * A copy of a tool result with personal data masked: the string value of every key named like
 * `phone`/`email` as a whole, and the emails and phone numbers found in any other string.
 */
export function maskPersonalData(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    if (!PERSONAL_KEY.test(key)) return maskText(value);
    return value.includes('@') ? maskEmail(value) : maskPhone(value);
  }
  if (Array.isArray(value)) return value.map((item) => maskPersonalData(item, key));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, maskPersonalData(item, name)]),
  );
}

/**
 * An output schema a masked result still satisfies: `l***@example.com` is no longer an address,
 * so `format: "email"` goes (the SDK checks `structuredContent` against the schema it lists).
 */
export function withoutEmailFormat(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutEmailFormat);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([name, item]) => !(name === 'format' && item === 'email'))
      .map(([name, item]) => [name, withoutEmailFormat(item)]),
  );
}
