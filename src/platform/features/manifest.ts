import type { lookup as dnsLookup } from 'node:dns';
import type { FastifyPluginAsyncTypebox, TSchema } from '@fastify/type-provider-typebox';
import type { Metric } from 'prom-client';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { ConsoleSessions } from '../auth/console-sessions.ts';
import type { TokenCredentialResolver } from '../auth/credentials.ts';
import { defineScopes, type ScopeDefinition } from '../auth/scopes.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { eventCatalog, type EventDefinition } from '../events/catalog.ts';
import type { Job } from '../jobs/scheduler.ts';
import type { Logger } from '../logging/logger.ts';
import type { FieldExamples } from '../http/openapi-examples.ts';
import type { McpCountDefinition, McpToolDefinition } from '../mcp/mcp-tool.ts';
import { definePersonalData, type PersonalData } from '../privacy/personal-data.ts';

/**
 * What every feature plugin is registered with: the app's configuration and shared machinery,
 * built once by `buildApp`. A plugin takes what it needs from it (most only `db`).
 */
export interface AppContext {
  config: Config;
  db: Database;
  /** Clears the verified-key cache of this process after an organization or key change. */
  verifier: { invalidate(): void };
  /** The service's clock (messaging windows); tests inject one to cross the 24-hour boundary. */
  clock: () => Date;
  /** DNS resolver of the webhook URL check (tests resolve made-up names); node:dns when unset. */
  lookup?: typeof dnsLookup;
  /** What the demo page at /demo/ is told (server.ts fills in the key of the agency it seeds). */
  demoPortal: { publishableKey: string | null };
  /** Seals and opens secrets at rest (SECRETS_KEY, decision 0160). */
  secrets: SecretBox;
  /** The developer console's one-time links and sessions (decision 0211). */
  consoleSessions: ConsoleSessions;
}

/** A feature's Fastify plugin: its routes (v1, admin or hooks), registered with the app context. */
export type FeaturePlugin = FastifyPluginAsyncTypebox<AppContext>;

/** What a feature's timed jobs are built with (the worker's, or the API process's own worker). */
export interface JobContext {
  db: Database;
  /** The operator's settings; tests pass none and get the documented defaults. */
  config: Partial<Config>;
  log?: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** Seals and opens secrets at rest (SECRETS_KEY, decision 0160). */
  secrets: SecretBox;
}

/** What a feature's start step is given (src/startup.ts). */
export interface StartContext {
  db: Database;
  secrets: SecretBox;
  log: Pick<Logger, 'info'>;
}

/**
 * A feature declares itself once (STYLE.md "A feature declares itself once"): `src/features.ts`
 * lists the manifests, and the app, the MCP server, the worker and the event catalog are folds
 * over that list. Order matters only for the OpenAPI document (schemas and routes appear in it in
 * list order).
 */
export interface FeatureManifest {
  /** The feature's folder name. */
  name: string;
  /** The scopes its routes and tools need (an API key holds them), in the order keys list them. */
  scopes?: readonly ScopeDefinition[];
  /** The OpenAPI tags it introduces (a tag another feature declared may be used without repeating it). */
  tags?: readonly OpenApiTag[];
  /**
   * Examples for the string fields of its schemas, in the demo agency's terms (the document's
   * examples); a field another feature declared keeps that one's.
   */
  examples?: FieldExamples;
  /** Named (`$id`) schemas its routes reference, in the order the OpenAPI document lists them. */
  schemas?: readonly TSchema[];
  /** Its routes on every surface (v1, admin, console, hooks, pages): the credential each takes is in its config. */
  routes?: readonly FeaturePlugin[];
  /**
   * The URL credentials the feature issues (a feed, a calendar, a visitor's link): the auth hook
   * resolves a route's `:token` with them, then checks the organization as for any credential.
   */
  credentials?: (context: { db: Database; secrets: SecretBox }) => TokenCredentialResolver[];
  /** Read-only tools of the MCP endpoint, in the order tools/list shows them. */
  mcpTools?: readonly McpToolDefinition[];
  /** Headline counts of the MCP summary (`get_summary`), in the order it lists them. */
  mcpCounts?: readonly McpCountDefinition[];
  /** Timed jobs of the worker. */
  jobs?: (context: JobContext) => Job[];
  /** Prometheus metrics of the feature, shown by GET /metrics of every API and worker process. */
  metrics?: (context: { db: Database }) => Metric[];
  /**
   * The personal data its tables hold (each table, its text columns classified, what erasure does) and
   * how its records are handed over when a contact is erased or merged (docs/privacy.md).
   */
  personalData?: PersonalData;
  /** Every event type the feature records. */
  events?: readonly EventDefinition[];
  /**
   * Work every API and worker process does once at start, after the migrations and before it
   * serves or delivers (sealing secrets an earlier version stored in clear, decision 0160).
   */
  atStart?: (context: StartContext) => Promise<void>;
}

/** A section of the reference: a tag's name and what it groups. */
export interface OpenApiTag {
  name: string;
  description: string;
}

/** Declares a feature's manifest (typed; nothing is registered until `src/features.ts` lists it). */
export function defineFeature(manifest: FeatureManifest): FeatureManifest {
  return manifest;
}

/**
 * Fills the process's registries from the features' manifests: the scopes keys may hold (their
 * schema's enum), the event catalog, and the personal-data places with their handovers. Called, explicitly, by what serves or works (buildApp, the
 * worker's jobs, the start steps) before anything is compiled or recorded; the same list again
 * changes nothing. Nothing is registered by importing a feature.
 */
export function installFeatures(features: readonly FeatureManifest[]): void {
  defineScopes(features.flatMap((feature) => feature.scopes ?? []));
  eventCatalog.register(features.flatMap((feature) => feature.events ?? []));
  definePersonalData(features.flatMap((feature) => (feature.personalData ? [feature.personalData] : [])));
}
