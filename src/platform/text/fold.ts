/**
 * Lowercase, accent-free form of a text ("Málaga" -> "malaga"), stored in `search_*` columns and
 * applied to filter input, so portal filters match case- and accent-insensitively through trigram
 * indexes without PostgreSQL's unaccent (not immutable, so not indexable).
 */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/** Escapes LIKE wildcards so user input matches literally inside `'%' || $1 || '%'`. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
