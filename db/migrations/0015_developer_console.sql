CREATE TABLE "console_links" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"link_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "request_logs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "request_logs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"request_id" text NOT NULL,
	"key_id" text,
	"key_prefix" text,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"operation_id" text,
	"mcp_tool" text,
	"status" integer NOT NULL,
	"error_code" text,
	"error_message" text,
	"latency_ms" integer NOT NULL,
	"ip" text
);
--> statement-breakpoint
ALTER TABLE "console_links" ADD CONSTRAINT "console_links_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "console_links_token_hash_key" ON "console_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "console_links_organization_id_idx" ON "console_links" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "console_links_expires_at_idx" ON "console_links" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "console_sessions_token_hash_key" ON "console_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "console_sessions_organization_id_idx" ON "console_sessions" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "console_sessions_expires_at_idx" ON "console_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "request_logs_organization_id_at_idx" ON "request_logs" USING btree ("organization_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "request_logs_organization_id_request_id_idx" ON "request_logs" USING btree ("organization_id","request_id");--> statement-breakpoint
CREATE INDEX "request_logs_at_idx" ON "request_logs" USING brin ("at");--> statement-breakpoint
SELECT agency_enable_tenant_rls('console_links');--> statement-breakpoint
SELECT agency_enable_tenant_rls('console_sessions');--> statement-breakpoint
SELECT agency_enable_tenant_rls('request_logs');
