import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';

/** The parts of an OpenAPI 3.1 document the scripts read. */
export interface OpenApiDocument {
  openapi?: string;
  paths?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/**
 * The OpenAPI 3.1 document the service serves at GET /v1/openapi.json. The app is built in-process
 * on a throwaway in-memory database and never listens: no server, PostgreSQL or Redis needed.
 */
export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
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
      return response.json() as OpenApiDocument;
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}
