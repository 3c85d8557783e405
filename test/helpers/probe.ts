import { setTimeout as sleep } from 'node:timers/promises';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/database.ts';
import { events, idempotencyKeys } from '../../src/db/schema.ts';
import { callerOf } from '../../src/platform/auth/auth.plugin.ts';
import { Errors } from '../../src/platform/errors/errors.ts';
import { defineEvent } from '../../src/platform/events/catalog.ts';
import { defineFeature, type FeatureManifest } from '../../src/platform/features/manifest.ts';
import { FEATURES } from '../../src/features.ts';
import { recordEvent } from '../../src/platform/events/record.ts';
import { ANY_KEY, SECRET_KEYS } from '../../src/platform/http/route-config.ts';
import { DataOf } from '../../src/platform/http/schemas.ts';

/**
 * A test-only feature declared exactly like a real one (route config, schemas, tenant transaction,
 * recordEvent). It lets the platform tests exercise write paths (402, write limits, idempotency,
 * 500 rendering, cross-tenant 404) before the v1 write endpoints of later issues exist.
 */
export const ProbeNoted = defineEvent({
  type: 'probe.noted',
  description: 'Test-only: a probe note was written.',
  schema: Type.Object({ note: Type.Object({ text: Type.String() }) }, { additionalProperties: false }),
  example: { note: { text: 'hello' } },
});

const NoteSchema = Type.Object(
  { id: Type.String(), text: Type.String(), livemode: Type.Boolean() },
  { additionalProperties: false },
);

/** On PostgreSQL: the server process of the last transaction that wrote a note, by its text. */
export const probeBackends = new Map<string, number>();

export function probePlugin(db: Database): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/v1/probe/notes',
      {
        config: { auth: { scope: 'contacts:write', keyTypes: SECRET_KEYS, write: true } },
        schema: {
          operationId: 'probe.notes.create',
          summary: 'Test probe: write a note',
          body: Type.Object(
            {
              text: Type.String({ minLength: 1, maxLength: 100 }),
              delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000 })),
              // After the write's transaction, before answering: a slow request. Under an Idempotency-Key
              // the transaction stays open until the answer (one unit of work, decision 0246), so on
              // PGlite's one connection every other request waits for it.
              pauseMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000 })),
              fail: Type.Optional(Type.String({ enum: ['crash', 'conflict', 'after-write'] })),
              // The note written in this many transactions, one after the other ('after-write' fails the last).
              transactions: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
            },
            { additionalProperties: false },
          ),
          response: { 201: DataOf(NoteSchema) },
        },
      },
      async (request, reply) => {
        const { organization } = callerOf(request);
        const { text, delayMs, pauseMs, fail, transactions = 1 } = request.body;
        if (fail === 'crash') throw new Error('probe crashed with SECRET_DETAIL');
        if (fail === 'conflict') throw Errors.duplicate('probe conflict');
        const write = (last: boolean) =>
          db.tenantTx(organization.id, async (tx) => {
            if (db.kind === 'postgres') {
              const [row] = await queryRows<{ pid: number }>(tx, sql`SELECT pg_backend_pid() AS pid`);
              if (row) probeBackends.set(text, row.pid);
            }
            const recorded = await recordEvent(tx, {
              type: ProbeNoted.type,
              data: { note: { text } },
              actor: { kind: 'API', userId: null },
            });
            if (delayMs) await sleep(delayMs);
            if (last && fail === 'after-write') throw new Error('failed after the write');
            return recorded;
          });
        for (let written = 1; written < transactions; written++) await write(false);
        const envelope = await write(true);
        if (pauseMs) await sleep(pauseMs);
        return reply.code(201).send({ data: { id: envelope.id, text, livemode: envelope.livemode } });
      },
    );

    app.get(
      '/v1/probe/approved',
      {
        config: { auth: { scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false, accessLevel: 3 } },
        schema: {
          operationId: 'probe.approved.get',
          summary: 'Test probe: a route that needs access level 3',
          response: { 200: DataOf(Type.Object({ ok: Type.Boolean() })) },
        },
      },
      async () => ({ data: { ok: true } }),
    );

    app.get(
      '/v1/probe/notes/:noteId',
      {
        config: { auth: { scope: 'portal:read', keyTypes: ANY_KEY, write: false } },
        schema: {
          operationId: 'probe.notes.get',
          summary: 'Test probe: read a note',
          params: Type.Object({ noteId: Type.String() }),
          response: { 200: DataOf(NoteSchema) },
        },
      },
      async (request) => {
        const { organization } = callerOf(request);
        const rows = await db.tenantTx(organization.id, (tx) =>
          tx
            .select()
            .from(events)
            .where(and(eq(events.organizationId, organization.id), eq(events.id, request.params.noteId))),
        );
        const row = rows[0];
        if (!row) throw Errors.notFound('Note', request.params.noteId);
        const note = row.data.note as { text: string };
        return { data: { id: row.id, text: note.text, livemode: row.livemode } };
      },
    );

    // A deprecated route, as a real one would be marked (config.deprecated).
    app.get(
      '/v1/probe/legacy',
      {
        config: {
          auth: { scope: null, keyTypes: ANY_KEY, write: false },
          deprecated: { since: '2026-11-01', sunset: '2027-06-01', link: 'https://docs.example.com/migrate' },
        },
        schema: {
          operationId: 'probe.legacy.get',
          summary: 'Test probe: a deprecated read',
          response: { 200: DataOf(Type.Object({ ok: Type.Boolean() }, { additionalProperties: false })) },
        },
      },
      async () => ({ data: { ok: true } }),
    );
  };
}

/** How many probe notes with this text the organization's event log holds. */
export async function notesWithText(db: Database, organizationId: string, text: string): Promise<number> {
  const rows = await db.tenantTx(organizationId, (tx) =>
    tx
      .select()
      .from(events)
      .where(
        and(eq(events.organizationId, organizationId), sql`${events.data} -> 'note' ->> 'text' = ${text}`),
      ),
  );
  return rows.length;
}

/** An Idempotency-Key's record as stored, if any. */
export async function idempotencyRecord(db: Database, organizationId: string, key: string) {
  const [row] = await db.tenantTx(organizationId, (tx) =>
    tx
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.organizationId, organizationId), eq(idempotencyKeys.key, key))),
  );
  return row;
}

/**
 * The probe as a feature of its own, declared like a real one (its events and routes in a manifest),
 * and the service's features with it: what `buildTestApp(..., { features: PROBE_FEATURES })` serves.
 */
export const probeFeature: FeatureManifest = defineFeature({
  name: 'probe',
  events: [ProbeNoted],
  routes: [async (app, context) => app.register(probePlugin(context.db))],
});
export const PROBE_FEATURES: readonly FeatureManifest[] = [...FEATURES, probeFeature];
