import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';

/** Kyero's schema v3.4, as published (test/fixtures/kyero/README.md): unchanged. */
const KYERO_XSD = readFileSync(new URL('../fixtures/kyero/kyero-v3.4.xsd', import.meta.url), 'utf8');

/** Validates a Kyero feed against Kyero's schema v3.4 with libxml2 (xmllint-wasm): no error at all. */
export async function expectValidKyero(xml: string): Promise<void> {
  const result = await validateXML({
    xml: [{ fileName: 'feed.xml', contents: xml }],
    schema: [{ fileName: 'kyero-v3.4.xsd', contents: KYERO_XSD }],
  });
  expect(result.errors, JSON.stringify(result.errors.slice(0, 5))).toEqual([]);
  expect(result.valid).toBe(true);
}
