ALTER TABLE "api_keys" ADD COLUMN "scopes_follow_defaults" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Keys made with their type's defaults before this column: those holding every default scope of their
-- type as it was before email:read and email:write (decision 0272). A key named narrower stays as it is.
UPDATE "api_keys" SET "scopes_follow_defaults" = true
WHERE ("type" = 'secret' AND "scopes" @> ARRAY['events:read','contacts:read','listings:read','portal:read','leads:write','leads:read','booking:write','finder:write','events:write','tasks:read','appointments:read','deals:read','messages:write','conversations:read']::text[])
   OR ("type" = 'read_only_secret' AND "scopes" @> ARRAY['events:read','contacts:read','listings:read','portal:read','leads:read','tasks:read','appointments:read','deals:read','conversations:read']::text[])
   OR ("type" = 'publishable' AND "scopes" @> ARRAY['portal:read','leads:write','booking:write','finder:write','events:write']::text[]);
