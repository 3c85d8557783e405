-- Extensions the portal tables need (both are "trusted": a database owner may create them).
--   pg_trgm     trigram GIN indexes behind the portal's substring filters (city, neighborhood, q);
--   btree_gist  the exclusion constraint that keeps an agent's active appointments from overlapping.
-- PGlite loads both in src/db/database.ts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gist;
