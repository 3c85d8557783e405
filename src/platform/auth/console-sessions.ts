import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/database.ts';
import { consoleLinks, consoleSessions } from '../../db/schema.ts';
import { newId } from '../ids/ids.ts';

/** The console's session cookie (HttpOnly, SameSite=Strict, Path=/console). */
export const CONSOLE_COOKIE = 'agency_console';
export const CONSOLE_LINK_TTL_MS = 15 * 60_000;
export const CONSOLE_SESSION_TTL_MS = 8 * 3_600_000;

/** A console session as the routes see it: the organization it may act on. */
export interface ConsoleSession {
  id: string;
  organizationId: string;
  expiresAt: Date;
  /** What state-changing requests send back in `X-CSRF-Token`: derived from the cookie's token. */
  csrfToken: string;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

/** The CSRF token of a session: a hash of its cookie token, so the page can be told it and nothing is stored. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');
}

/**
 * One-time console links and the sessions they open (decision 0211). Tokens are 256-bit random,
 * stored as SHA-256 only; lookups are by hash, across tenants (the token is the credential).
 */
export class ConsoleSessions {
  constructor(
    private readonly db: Database,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Mints a link token for `organizationId`, valid 15 minutes and usable once. */
  async mintLink(organizationId: string): Promise<{ id: string; token: string; expiresAt: Date }> {
    const token = newToken();
    const expiresAt = new Date(this.clock().getTime() + CONSOLE_LINK_TTL_MS);
    const id = newId('cl');
    await this.db.systemTx((tx) =>
      tx.insert(consoleLinks).values({ id, organizationId, tokenHash: hashOf(token), expiresAt }),
    );
    return { id, token, expiresAt };
  }

  /**
   * Uses a link (once: a second use, an expired or unknown token answers null) and opens an 8-hour
   * session for its organization; returns the session's cookie token.
   */
  async openLink(linkToken: string): Promise<{ token: string; session: ConsoleSession } | null> {
    const now = this.clock();
    return this.db.systemTx(async (tx) => {
      const [link] = await tx
        .update(consoleLinks)
        .set({ usedAt: now })
        .where(
          and(
            eq(consoleLinks.tokenHash, hashOf(linkToken)),
            isNull(consoleLinks.usedAt),
            gt(consoleLinks.expiresAt, now),
          ),
        )
        .returning({ id: consoleLinks.id, organizationId: consoleLinks.organizationId });
      if (!link) return null;
      const token = newToken();
      const session = {
        id: newId('cs'),
        organizationId: link.organizationId,
        expiresAt: new Date(now.getTime() + CONSOLE_SESSION_TTL_MS),
      };
      await tx.insert(consoleSessions).values({ ...session, tokenHash: hashOf(token), linkId: link.id });
      return { token, session: { ...session, csrfToken: csrfTokenOf(token) } };
    });
  }

  /** The live session a cookie token names, or null (unknown, expired or revoked). */
  async verify(token: string): Promise<ConsoleSession | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const [row] = await this.db.systemTx((tx) =>
      tx
        .select({
          id: consoleSessions.id,
          organizationId: consoleSessions.organizationId,
          expiresAt: consoleSessions.expiresAt,
        })
        .from(consoleSessions)
        .where(
          and(
            eq(consoleSessions.tokenHash, hashOf(token)),
            isNull(consoleSessions.revokedAt),
            gt(consoleSessions.expiresAt, this.clock()),
          ),
        )
        .limit(1),
    );
    return row ? { ...row, csrfToken: csrfTokenOf(token) } : null;
  }

  /** Ends one session (sign out); true when it was live. */
  async revoke(sessionId: string): Promise<boolean> {
    const rows = await this.db.systemTx((tx) =>
      tx
        .update(consoleSessions)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(consoleSessions.id, sessionId), isNull(consoleSessions.revokedAt)))
        .returning({ id: consoleSessions.id }),
    );
    return rows.length > 0;
  }

  /** Ends every live session of an organization (the operator's revocation); returns how many. */
  async revokeAll(organizationId: string): Promise<number> {
    const rows = await this.db.systemTx((tx) =>
      tx
        .update(consoleSessions)
        .set({ revokedAt: sql`now()` })
        .where(
          and(
            eq(consoleSessions.organizationId, organizationId),
            isNull(consoleSessions.revokedAt),
            gt(consoleSessions.expiresAt, this.clock()),
          ),
        )
        .returning({ id: consoleSessions.id }),
    );
    return rows.length;
  }
}
