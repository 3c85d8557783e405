import { defineConfig } from 'drizzle-kit';

// drizzle-kit only generates SQL here (no database connection): `npx drizzle-kit generate`.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './db/migrations',
});
