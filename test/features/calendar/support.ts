/** Shared parts of the calendar tests: UTC calendar-date arithmetic written apart from the service's. */
export const DAY = 86_400_000;

/** A UTC calendar date `days` after `date` (YYYY-MM-DD). */
export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/** Today's UTC calendar date. */
export const today = () => new Date().toISOString().slice(0, 10);
