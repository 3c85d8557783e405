/**
 * The figures the README and docs/mcp.md state are the code's (issue 40 item 7): a table that
 * drifts from the scopes, limits or tools it describes fails here, instead of misleading the next
 * integrator. Each table is read from the Markdown and compared with the registries the service
 * itself fills from the features' manifests.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FEATURES } from '../src/features.ts';
import { MCP_TOOLS } from '../src/mcp/mcp.tools.ts';
import { KEY_TYPE_LIMITS } from '../src/platform/auth/plans.ts';
import { APPROVAL_SCOPES, PUBLISHABLE_SCOPES, READ_SCOPES, SCOPES } from '../src/platform/auth/scopes.ts';
import { installFeatures } from '../src/platform/features/manifest.ts';

installFeatures(FEATURES);

/** The rows of the first Markdown table from the line matching `heading` on (cells trimmed; header and rule left out). */
function tableAfter(file: string, heading: RegExp): string[][] {
  const lines = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8').split('\n');
  const start = lines.findIndex((line) => heading.test(line));
  expect(start, `${file}: no line matching ${heading}`).toBeGreaterThanOrEqual(0);
  const first = lines.findIndex((line, index) => index >= start && line.startsWith('|'));
  const rows: string[][] = [];
  for (let index = first; index < lines.length && lines[index]?.startsWith('|'); index++) {
    rows.push(
      (lines[index] as string)
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(2);
}

/** The code spans of a cell: `a` `b` → ['a', 'b']. */
const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);

describe("README's key table", () => {
  const rows = new Map(tableAfter('README.md', /^## Keys, scopes and limits/).map((row) => [row[0], row]));
  const limits = (requests: number, writes: number) =>
    writes > 0 ? `${requests}, of which ${writes} writes` : `${requests}, no writes`;

  it('names the scopes each key type gets by default', () => {
    expect(codes(rows.get('publishable')?.[3] ?? '').flatMap((cell) => cell.split(' '))).toEqual(
      PUBLISHABLE_SCOPES,
    );
    const secret = rows.get('secret')?.[3] ?? '';
    expect(secret).toMatch(/^every scope except .* \(support approval\)$/);
    expect(codes(secret)).toEqual(APPROVAL_SCOPES);
    expect(rows.get('read-only secret')?.[3]).toBe('every `*:read` scope');
    expect(READ_SCOPES).toEqual(SCOPES.filter((scope) => scope.endsWith(':read')));
  });

  it('states the per-minute limits of each key type', () => {
    expect(rows.get('publishable')?.[4]).toBe(
      limits(KEY_TYPE_LIMITS.publishable.requestsPerMinute, KEY_TYPE_LIMITS.publishable.writesPerMinute),
    );
    expect(rows.get('secret')?.[4]).toBe(
      limits(KEY_TYPE_LIMITS.secret.requestsPerMinute, KEY_TYPE_LIMITS.secret.writesPerMinute),
    );
    expect(rows.get('read-only secret')?.[4]).toBe(
      limits(
        KEY_TYPE_LIMITS.read_only_secret.requestsPerMinute,
        KEY_TYPE_LIMITS.read_only_secret.writesPerMinute,
      ),
    );
  });
});

describe("docs/mcp.md's tool table", () => {
  it('lists every tool of tools/list, in its order, with the scopes it needs', () => {
    const rows = tableAfter('docs/mcp.md', /^\| tool +\| scopes/).map(([tool, scopes]) => ({
      name: codes(tool ?? '')[0],
      scopes: codes(scopes ?? ''),
    }));
    expect(rows).toEqual(MCP_TOOLS.map((tool) => ({ name: tool.name, scopes: [...tool.scopes] })));
  });
});
