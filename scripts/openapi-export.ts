/**
 * `npm run openapi:export [-- <path>]`: writes the OpenAPI 3.1 document the service serves at
 * GET /v1/openapi.json to <path> (default openapi.json), pretty-printed.
 *
 * The app is built in-process on a throwaway in-memory database and never listens, so this needs
 * no server, no PostgreSQL and no Redis. CI lints the result with `npx @redocly/cli lint`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';

async function main(): Promise<void> {
  const output = resolve(process.argv[2] ?? 'openapi.json');

  const db = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://' });
  try {
    await db.migrate();
    const config = loadConfig({
      ADMIN_TOKEN: 'export-token-0123456789',
      LOG_LEVEL: 'silent',
      DATA_DIR: 'memory://',
    });
    const app = await buildApp(config, { db });
    try {
      const response = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (response.statusCode !== 200) {
        throw new Error(
          `GET /v1/openapi.json answered ${response.statusCode}: ${response.body.slice(0, 500)}`,
        );
      }
      const document = response.json() as { openapi?: string; paths?: Record<string, unknown> };
      writeFileSync(output, `${JSON.stringify(document, null, 2)}\n`);
      const paths = Object.keys(document.paths ?? {}).length;
      process.stdout.write(`Wrote ${output} (OpenAPI ${document.openapi ?? '?'}, ${paths} paths).\n`);
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(
    `openapi:export failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
}
