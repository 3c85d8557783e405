// A statement that read-only tenant transactions run in their opening round trip, for whoever asked
// for it in the current async context (decision 0225). The portal's response cache reads the
// organization's portal version this way, in the same transaction as the data it caches, so an
// answer is never filed under a version newer than its data, and a miss costs no extra round trip.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ReadProbe {
  /** One SELECT, no parameters (it joins the simple-protocol prelude); RLS scopes it to the tenant. */
  readonly statement: string;
  /** The statement's rows, once per read-only transaction opened while the probe is active. */
  seen(rows: readonly Record<string, unknown>[]): void;
}

const active = new AsyncLocalStorage<ReadProbe>();

/** Runs `fn` (and everything it starts) with `probe` active. */
export function withReadProbe<T>(probe: ReadProbe, fn: () => T): T {
  return active.run(probe, fn);
}

/** The probe of the current async context, if any. */
export function currentReadProbe(): ReadProbe | undefined {
  return active.getStore();
}
