// Wall-clock times of day and IANA time zones, with nothing but Node's Intl.

/**
 * The canonical name of an IANA time zone ("europe/madrid" -> "Europe/Madrid", "US/Eastern" ->
 * "America/New_York"), or null when Intl does not know it. Offsets such as "+01:00" are refused:
 * they have no DST rules, so an agent's hours would drift by an hour twice a year.
 */
export function canonicalTimeZone(zone: string): string | null {
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    return /^[A-Za-z]/.test(resolved) ? resolved : null;
  } catch {
    return null;
  }
}

/** Minutes since midnight of "HH:MM". */
export function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number) as [number, number];
  return hours * 60 + minutes;
}

/** The calendar date (YYYY-MM-DD) in `zone` at `instant`. */
export function dateIn(zone: string, instant: number = Date.now()): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
}

/** The calendar date `days` after `date` (YYYY-MM-DD; negative goes back). */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (YYYY-MM-DD): 0 for the same day. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** True for a YYYY-MM-DD that names a real day (not 2027-02-30). */
export function isCalendarDate(date: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}$/.test(date) && new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) === date
  );
}
