/** Shared parts of the calendar tests: fast keys and UTC calendar-date arithmetic written apart from the service's. */
import type { FastifyInstance } from 'fastify';
import { createTenant } from '../../helpers/factories.ts';

export const DAY = 86_400_000;
/** Limits no test reaches. */
export const FAST = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };

/** A fresh organization whose secret key is never rate limited. */
export const freshTenant = (app: FastifyInstance) => createTenant(app, { secret: FAST });

/** A UTC calendar date `days` after `date` (YYYY-MM-DD). */
export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/** Today's UTC calendar date. */
export const today = () => new Date().toISOString().slice(0, 10);
