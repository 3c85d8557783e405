import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, parseSecretsKey, type Config } from '../../config.ts';
import { KEY_BYTES, SecretBox } from './secret-box.ts';

/** The generated key of the embedded default, beside the database in DATA_DIR. */
export const SECRETS_KEY_FILE = 'secrets.key';

/** One random key per process for DATA_DIR=memory:// (and for callers that pass no config: tests). */
let processKey: Buffer | undefined;

type KeySettings = Partial<Pick<Config, 'secretsKey' | 'secretsKeyPrevious' | 'dataDir'>>;

/**
 * The secrets box of this process (decision 0160): SECRETS_KEY when set; otherwise the key in
 * `DATA_DIR/secrets.key`, created once (mode 0600) and reused at every start; for
 * `DATA_DIR=memory://`, or with no config at all, a random key that lives as long as the process
 * (so does an in-memory database). SECRETS_KEY_PREVIOUS is added in every case. NODE_ENV=production
 * never gets here without SECRETS_KEY (config.ts refuses to start).
 */
export function openSecretBox(settings: KeySettings = {}): SecretBox {
  const previous = settings.secretsKeyPrevious ?? [];
  if (settings.secretsKey !== undefined) return new SecretBox(settings.secretsKey, previous);
  if (settings.dataDir === undefined || settings.dataDir === 'memory://') {
    processKey ??= randomBytes(KEY_BYTES);
    return new SecretBox(processKey, previous);
  }
  return new SecretBox(keyFileIn(settings.dataDir), previous);
}

/** Reads DATA_DIR/secrets.key, creating it first when missing (`wx`: two processes never both write it). */
function keyFileIn(dataDir: string): Buffer {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, SECRETS_KEY_FILE);
  try {
    writeFileSync(path, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = parseSecretsKey(readFileSync(path, 'utf8'));
  if (key === null) {
    throw new ConfigError(
      'SECRETS_KEY',
      `is unset and ${path} does not hold a 32-byte key (64 hex characters or base64): restore the file, or set SECRETS_KEY`,
    );
  }
  return key;
}
