// Public holidays by country and region, from date-holidays (decision 0236): computed for the dates
// asked, never stored, so a corrected rule in a new release of the library applies at once.
import Holidays from 'date-holidays';

export interface HolidayPlace {
  /** ISO 3166-1 alpha-2 (ES). */
  country: string;
  /** The library's first-level subdivision (ES: MD for Madrid, CT for Catalonia); null: the country's only. */
  region: string | null;
}

export interface Holiday {
  /** YYYY-MM-DD, the day as the country's calendar names it. */
  date: string;
  name: string;
}

const catalog = new Holidays();
const calendars = new Map<string, Holidays>();

/** Why a place is not one the library knows (a message for the field), or null when it is. */
export function unknownHolidayPlace(
  place: HolidayPlace,
): { field: 'country' | 'region'; message: string } | null {
  const countries = catalog.getCountries('en') ?? {};
  if (!Object.hasOwn(countries, place.country)) {
    return {
      field: 'country',
      message: 'is not a country with known public holidays (ISO 3166-1 alpha-2, e.g. ES)',
    };
  }
  if (place.region === null) return null;
  const regions = catalog.getStates(place.country, 'en') ?? {};
  if (!Object.hasOwn(regions, place.region)) {
    const known = Object.keys(regions);
    return {
      field: 'region',
      message:
        known.length === 0
          ? `must be null: ${place.country} has no regional holidays`
          : `is not a region of ${place.country} (one of ${known.join(', ')})`,
    };
  }
  return null;
}

function calendarOf(place: HolidayPlace, language: string): Holidays {
  const key = `${place.country}/${place.region ?? ''}/${language}`;
  let found = calendars.get(key);
  if (!found) {
    found =
      place.region === null
        ? new Holidays(place.country, { languages: [language], types: ['public'] })
        : new Holidays(place.country, place.region, { languages: [language], types: ['public'] });
    calendars.set(key, found);
  }
  return found;
}

/**
 * The public holidays (type `public`: the days the country closes) from `from` to `to` (YYYY-MM-DD,
 * inclusive), one per date (a substitute day named like its holiday is kept once), in order, named
 * in `language` where the library has it (its default otherwise).
 */
export function publicHolidays(place: HolidayPlace, from: string, to: string, language = 'en'): Holiday[] {
  const calendar = calendarOf(place, language);
  const byDate = new Map<string, string>();
  for (let year = Number(from.slice(0, 4)); year <= Number(to.slice(0, 4)); year += 1) {
    for (const holiday of calendar.getHolidays(year, language)) {
      const date = holiday.date.slice(0, 10);
      if (holiday.type === 'public' && date >= from && date <= to && !byDate.has(date)) {
        byDate.set(date, holiday.name);
      }
    }
  }
  return [...byDate].sort(([a], [b]) => a.localeCompare(b)).map(([date, name]) => ({ date, name }));
}
