-- Custom SQL migration file, put your code below! --
-- The contacts list and the portal listing count through index-only scans, which skip the heap only
-- for pages the visibility map marks all-visible; only VACUUM sets it. With the default scale factors
-- a 1M-row table waits for 200,000 inserts (or updates) before autovacuum visits it, and until then
-- every row an agency added since is a heap fetch (measured: 4,954 heap fetches per contacts search on
-- an agency with ~5,000 contacts, 3-4 ms instead of 0.4). Vacuum these two after 1 % new or 2 %
-- changed rows instead (docs/decisions.md "Read performance").
ALTER TABLE "contacts" SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);--> statement-breakpoint
ALTER TABLE "properties" SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);
