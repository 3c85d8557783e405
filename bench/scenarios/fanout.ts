/**
 * Scenario `fanout`: the `leads` scenario with 3 webhook subscriptions (every event) per agency and
 * a delivery worker running: each lead form fans out 2 x 3 deliveries in its transaction, on the
 * service and on the bare baseline alike, while the worker delivers them to a local receiver.
 * See bench/scenarios/leads.ts and bench/README.md.
 */
import type { Scenario } from '../lib/scenario.ts';
import { runLeads } from './leads.ts';

export const scenario: Scenario = {
  description: 'POST /v1/leads fanning out to 3 webhook subscriptions per agency, a worker delivering',
  run: (args) => runLeads(args, 'fanout', { subscriptions: 3, workers: 1 }),
  check: ['--check'],
};
