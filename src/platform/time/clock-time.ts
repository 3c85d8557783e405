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
