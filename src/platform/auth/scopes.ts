import { Type } from '@fastify/type-provider-typebox';
import type { KeyType } from './keys.ts';

/**
 * Scopes (SPEC.md "Authentication" rule 5): each feature declares the scopes its routes and tools need
 * in its manifest (`scopes`), and `src/features.ts` defines them here once, in the list's order. The
 * platform knows no scope by name: the lists below are filled in place by `defineScopes`, so a module
 * that imported them before sees them filled.
 */

/** A permission an API key may hold, declared by the feature whose routes need it. */
export interface ScopeDefinition {
  /** `<resource>:read` or `<resource>:write`; a `:read` scope is what a read-only secret key may hold. */
  name: string;
  /** What the scope allows, in a few words (the OpenAPI description of scope names lists them). */
  description: string;
  /** A publishable key (in a browser) may hold it, and gets it by default. */
  publishable?: boolean;
  /** Needs support approval: never granted by default, and only at access level 3. */
  approval?: boolean;
}

export type Scope = string;

/** Every declared scope, in the features' order. */
export const SCOPES: string[] = [];
/** What a publishable key may ever hold (and gets by default). */
export const PUBLISHABLE_SCOPES: string[] = [];
/** Scopes that need support approval: never granted by default. */
export const APPROVAL_SCOPES: string[] = [];
/** What a secret key gets when it names none: every scope but those needing approval. */
export const DEFAULT_SECRET_SCOPES: string[] = [];
/** A read-only secret key can only read. */
export const READ_SCOPES: string[] = [];

/** The most scopes a key may list (an array bound for the document; far above the declared ones). */
export const MAX_SCOPES = 64;

/**
 * The JSON Schema of one scope name: its `enum` is `SCOPES` itself (the same array), so routes
 * compiled after `defineScopes` validate against the declared scopes, and the document lists them
 * with what each allows.
 */
export const ScopeNameSchema = Type.Unsafe<string>({ type: 'string' });
const scopeNameSchema = ScopeNameSchema as unknown as { enum: string[]; description: string };
scopeNameSchema.enum = SCOPES;

const SCOPE_NAME = /^[a-z][a-z-]*:(read|write)$/;

/** Fills the lists from the features' declarations (src/features.ts); the same list again is a no-op. */
export function defineScopes(definitions: readonly ScopeDefinition[]): void {
  const names = definitions.map((definition) => definition.name);
  if (names.join() === SCOPES.join()) return;
  for (const name of names) {
    if (!SCOPE_NAME.test(name))
      throw new Error(`a scope is <resource>:read or <resource>:write, not ${name}`);
  }
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (repeated.length > 0) throw new Error(`scopes declared twice: ${repeated.join(', ')}`);
  if (names.length > MAX_SCOPES) throw new Error(`more than ${MAX_SCOPES} scopes`);
  const fill = (list: string[], values: string[]) => list.splice(0, list.length, ...values);
  fill(SCOPES, names);
  fill(
    PUBLISHABLE_SCOPES,
    definitions.filter((d) => d.publishable).map((d) => d.name),
  );
  fill(
    APPROVAL_SCOPES,
    definitions.filter((d) => d.approval).map((d) => d.name),
  );
  fill(
    DEFAULT_SECRET_SCOPES,
    names.filter((name) => !APPROVAL_SCOPES.includes(name)),
  );
  fill(
    READ_SCOPES,
    names.filter((name) => name.endsWith(':read')),
  );
  scopeNameSchema.description = `A scope: ${definitions.map((d) => `\`${d.name}\` ${d.description}`).join('; ')}`;
}

export function isScope(value: string): value is Scope {
  return SCOPES.includes(value);
}

/** What a key of this type holds when made without naming scopes. */
export function defaultScopesOf(type: KeyType): readonly Scope[] {
  if (type === 'publishable') return PUBLISHABLE_SCOPES;
  if (type === 'read_only_secret') return READ_SCOPES;
  return DEFAULT_SECRET_SCOPES;
}

/**
 * The scopes a key holds: what it was given (still declared), and, for a key made without naming any,
 * its type's defaults as they are now, so a feature's new default scope reaches the keys that had "all of
 * them" (decision 0272). A scope it was granted beyond the defaults (support approval) stays.
 */
export function heldScopes(stored: readonly string[], type: KeyType, followsDefaults: boolean): Scope[] {
  const given = stored.filter(isScope);
  if (!followsDefaults) return given;
  const added = defaultScopesOf(type).filter((scope) => !given.includes(scope));
  return added.length === 0 ? given : [...given, ...added];
}
