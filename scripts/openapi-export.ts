/**
 * `npm run openapi:export [-- <path>]`: writes the OpenAPI 3.1 document the service serves at
 * GET /v1/openapi.json to <path> (default openapi.json), pretty-printed.
 *
 * The app is built in-process on a throwaway in-memory database and never listens, so this needs
 * no server, no PostgreSQL and no Redis. CI lints the result with `npx @redocly/cli lint`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildOpenApiDocument } from './lib/openapi-document.ts';

async function main(): Promise<void> {
  const output = resolve(process.argv[2] ?? 'openapi.json');
  const document = await buildOpenApiDocument();
  writeFileSync(output, `${JSON.stringify(document, null, 2)}\n`);
  const paths = Object.keys(document.paths ?? {}).length;
  process.stdout.write(`Wrote ${output} (OpenAPI ${document.openapi ?? '?'}, ${paths} paths).\n`);
}

try {
  await main();
} catch (error) {
  process.stderr.write(
    `openapi:export failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
}
