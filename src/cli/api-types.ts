// What the CLI reads from the admin API's answers. The CLI is a client of the HTTP API, never of the
// service's modules: the shapes come from the API's own description (the TypeScript client's types
// generated from /v1/openapi.json), or, for answers that document has no named schema for, are
// declared here as the fields the CLI reads.
import type { components } from '../../clients/typescript/src/generated/openapi.ts';

type Schemas = components['schemas'];

export type AdminOrganization = Schemas['AdminOrganization'];
export type AdminApiKey = Schemas['AdminApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type DemoSeed = Schemas['DemoSeed'];

/** One refused row of `POST /admin/v1/organizations/{orgId}/properties/import` (docs/import.md). */
export interface ImportRowError {
  index: number;
  code: string | null;
  field: string;
  message: string;
}

/** The answer's `data` of that import. */
export interface ImportResult {
  received: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  dryRun: boolean;
  errors: ImportRowError[];
}
