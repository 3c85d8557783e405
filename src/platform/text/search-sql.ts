import { and, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { inline, type Bind } from '../../db/statements.ts';
import { fold, likeLiteral } from './fold.ts';

/** The folded words of a search text: each one must occur (the query's shape has one test per word). */
export const wordsOf = (text: string) => fold(text).split(/\s+/).filter(Boolean);

/** Every word of `text` (folded) appears in `column` (a folded search column): trigram-indexable. */
export function containsAllWords(column: AnyColumn, text: string, bind: Bind = inline): SQL {
  return and(...wordsOf(text).map((word) => sql`${column} LIKE ${bind(`%${likeLiteral(word)}%`)}`)) as SQL;
}
