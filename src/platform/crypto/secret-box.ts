import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Secrets at rest (decision 0160): values the service must read back in clear (webhook signing
 * secrets, replayable responses that show a key) are sealed with AES-256-GCM before they reach the
 * database. A sealed value is text, so it fits the columns that held the plaintext:
 *
 *   enc:v1:<key id>:<base64url(12-byte IV | 16-byte tag | ciphertext)>
 *
 * `v1` names the format; the key id (8 hex characters of a SHA-256 of the key) says which key sealed
 * it, so a box that holds the current key and the previous ones (rotation) opens any of them. The
 * caller's `context` (e.g. the subscription id) is authenticated with the header as associated
 * data: a sealed value copied to another row does not open there.
 */
export const SEALED_PREFIX = 'enc:v1:';
export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^enc:v1:([0-9a-f]{8}):([A-Za-z0-9_-]+)$/;

/** A sealed value that cannot be opened: unknown key, wrong context or tampered bytes. */
export class SecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsError';
  }
}

/** The key's public name: enough to pick the key, nothing about its bytes. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('agency-crm secrets key id\0').update(key).digest('hex').slice(0, 8);
}

/** True for a value in the sealed format (whatever its key); plaintext left by earlier versions is not. */
export function isSealed(value: string): boolean {
  return value.startsWith(SEALED_PREFIX);
}

/** The key id a sealed value names, or null for plaintext. */
export function sealedKeyId(value: string): string | null {
  return SEALED.exec(value)?.[1] ?? null;
}

/** Seals with the current key; opens with any key it holds. */
export class SecretBox {
  readonly currentKeyId: string;
  private readonly current: Buffer;
  private readonly keys = new Map<string, Buffer>();

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== KEY_BYTES) throw new RangeError(`a secrets key is ${KEY_BYTES} bytes`);
      if (!this.keys.has(keyIdOf(key))) this.keys.set(keyIdOf(key), Buffer.from(key));
    }
    this.current = Buffer.from(current);
    this.currentKeyId = keyIdOf(current);
  }

  /** The ids of every key this box opens with, the current one first. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** Whether a value is sealed under the current key (nothing to re-seal). */
  isCurrent(value: string): boolean {
    return sealedKeyId(value) === this.currentKeyId;
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    cipher.setAAD(associatedData(this.currentKeyId, context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const packed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    return `${SEALED_PREFIX}${this.currentKeyId}:${packed}`;
  }

  /** The plaintext of a sealed value; throws SecretsError naming what went wrong, never the value. */
  open(value: string, context: string): string {
    const match = SEALED.exec(value);
    if (!match) throw new SecretsError('not a sealed value (expected enc:v1:<key id>:<data>)');
    const keyId = match[1] as string;
    const key = this.keys.get(keyId);
    if (!key) {
      throw new SecretsError(
        `sealed under key ${keyId}, which is neither SECRETS_KEY (${this.currentKeyId}) nor in SECRETS_KEY_PREVIOUS`,
      );
    }
    const packed = Buffer.from(match[2] as string, 'base64url');
    if (packed.length < IV_BYTES + TAG_BYTES)
      throw new SecretsError(`sealed value under key ${keyId} is truncated`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, IV_BYTES));
      decipher.setAAD(associatedData(keyId, context));
      decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretsError(
        `sealed value under key ${keyId} failed authentication (altered, or another row's)`,
      );
    }
  }

  /**
   * A signature of `message` for links the service hands out (a visitor's manage link): HMAC-SHA256
   * under a key derived from the current one for `context` (HKDF: the sealing key itself signs
   * nothing), cut to 128 bits, as `<key id>.<base64url tag>`. URL-safe.
   */
  sign(message: string, context: string): string {
    return `${this.currentKeyId}.${tagOf(this.current, message, context)}`;
  }

  /** Whether `signature` is `sign(message, context)` under any key the box holds (rotation). */
  verify(signature: string, message: string, context: string): boolean {
    const match = /^([0-9a-f]{8})\.([A-Za-z0-9_-]{22})$/.exec(signature);
    const key = match ? this.keys.get(match[1] as string) : undefined;
    if (!match || !key) return false;
    const expected = Buffer.from(tagOf(key, message, context));
    const given = Buffer.from(match[2] as string);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** Plaintext left by an earlier version passes through; a sealed value is opened. */
  reveal(value: string, context: string): string {
    return isSealed(value) ? this.open(value, context) : value;
  }
}

function associatedData(keyId: string, context: string): Buffer {
  return Buffer.from(`${SEALED_PREFIX}${keyId}:${context}`, 'utf8');
}

function tagOf(key: Buffer, message: string, context: string): string {
  const signingKey = Buffer.from(
    hkdfSync('sha256', key, Buffer.alloc(0), `agency-crm signing\0${context}`, 32),
  );
  return createHmac('sha256', signingKey).update(message).digest().subarray(0, 16).toString('base64url');
}
