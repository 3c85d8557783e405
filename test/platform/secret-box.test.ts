import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import {
  isSealed,
  keyIdOf,
  SecretBox,
  SecretsError,
  sealedKeyId,
} from '../../src/platform/crypto/secret-box.ts';
import { openSecretBox, SECRETS_KEY_FILE } from '../../src/platform/crypto/secrets-key.ts';

const key = () => randomBytes(32);
const SECRET = 'whsec_c2VjcmV0LXZhbHVlLXRoYXQtbXVzdC1ub3QtbGVhaw==';

describe('SecretBox', () => {
  it('round-trips, with a fresh IV each time and the version and key id in front', () => {
    const box = new SecretBox(key());
    const first = box.seal(SECRET, 'ctx');
    const second = box.seal(SECRET, 'ctx');
    expect(first).not.toBe(second);
    expect(first).toMatch(new RegExp(`^enc:v1:${box.currentKeyId}:[A-Za-z0-9_-]+$`));
    expect(first).not.toContain(SECRET);
    expect(isSealed(first)).toBe(true);
    expect(sealedKeyId(first)).toBe(box.currentKeyId);
    expect(box.open(first, 'ctx')).toBe(SECRET);
    expect(box.open(box.seal('', 'ctx'), 'ctx')).toBe('');
    expect(box.open(box.seal('ünïcødé ✓', 'c'), 'c')).toBe('ünïcødé ✓');
  });

  it('refuses a tampered value: any changed byte of IV, tag or ciphertext fails authentication', () => {
    const box = new SecretBox(key());
    const sealed = box.seal(SECRET, 'ctx');
    const [head, data] = [
      sealed.slice(0, sealed.lastIndexOf(':') + 1),
      sealed.slice(sealed.lastIndexOf(':') + 1),
    ];
    const bytes = Buffer.from(data, 'base64url');
    for (const index of [0, 11, 12, 27, 28, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[index] = (altered[index] as number) ^ 1;
      expect(() => box.open(head + altered.toString('base64url'), 'ctx')).toThrow(/failed authentication/);
    }
    expect(() => box.open(head + bytes.subarray(0, 20).toString('base64url'), 'ctx')).toThrow(/truncated/);
    expect(() => box.open('enc:v2:abcdef01:AAAA', 'ctx')).toThrow(SecretsError);
  });

  it('refuses a value moved to another context (another row)', () => {
    const box = new SecretBox(key());
    expect(() => box.open(box.seal(SECRET, 'webhook-secret:wh_a'), 'webhook-secret:wh_b')).toThrow(
      /failed authentication/,
    );
  });

  it('refuses a value sealed under a key it does not hold, naming both key ids', () => {
    const sealer = new SecretBox(key());
    const other = new SecretBox(key());
    expect(() => other.open(sealer.seal(SECRET, 'ctx'), 'ctx')).toThrow(
      new RegExp(
        `sealed under key ${sealer.currentKeyId}, which is neither SECRETS_KEY \\(${other.currentKeyId}\\)`,
      ),
    );
  });

  it('rotates: a previous key still opens what it sealed, and only the current key seals', () => {
    const oldKey = key();
    const newKey = key();
    const sealedBefore = new SecretBox(oldKey).seal(SECRET, 'ctx');
    const rotated = new SecretBox(newKey, [oldKey]);
    expect(rotated.keyIds).toEqual([keyIdOf(newKey), keyIdOf(oldKey)]);
    expect(rotated.open(sealedBefore, 'ctx')).toBe(SECRET);
    expect(rotated.isCurrent(sealedBefore)).toBe(false);
    const sealedAfter = rotated.seal(SECRET, 'ctx');
    expect(sealedKeyId(sealedAfter)).toBe(keyIdOf(newKey));
    expect(rotated.isCurrent(sealedAfter)).toBe(true);
    expect(() => new SecretBox(oldKey).open(sealedAfter, 'ctx')).toThrow(SecretsError);
  });

  it('passes plaintext from an earlier version through reveal, and opens sealed values', () => {
    const box = new SecretBox(key());
    expect(box.reveal(SECRET, 'ctx')).toBe(SECRET);
    expect(box.reveal(box.seal(SECRET, 'ctx'), 'ctx')).toBe(SECRET);
    expect(() => box.open(SECRET, 'ctx')).toThrow(/not a sealed value/);
  });

  it('never puts the key or the plaintext in an error message', () => {
    const secretKey = key();
    const box = new SecretBox(secretKey);
    const sealed = box.seal(SECRET, 'ctx');
    for (const attempt of [() => box.open(sealed, 'other'), () => new SecretBox(key()).open(sealed, 'ctx')]) {
      try {
        attempt();
        expect.unreachable();
      } catch (error) {
        const message = (error as Error).message;
        expect(message).not.toContain(SECRET);
        expect(message).not.toContain(secretKey.toString('base64'));
        expect(message).not.toContain(secretKey.toString('hex'));
      }
    }
  });
});

describe('SECRETS_KEY and SECRETS_KEY_PREVIOUS', () => {
  const raw = key();

  it('accepts 32 bytes as hex, base64 or base64url', () => {
    for (const text of [raw.toString('hex'), raw.toString('base64'), raw.toString('base64url')]) {
      expect(loadConfig({ SECRETS_KEY: text }).secretsKey?.equals(raw)).toBe(true);
    }
    expect(loadConfig({}).secretsKey).toBeUndefined();
    expect(loadConfig({}).secretsKeyPrevious).toEqual([]);
  });

  it.each([
    ['too short', randomBytes(16).toString('base64')],
    ['too long', randomBytes(48).toString('hex')],
    ['not a key', 'correct horse battery staple'],
  ])('refuses a SECRETS_KEY that is %s, without echoing it', (_what, value) => {
    let error: unknown;
    try {
      loadConfig({ SECRETS_KEY: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Invalid configuration: SECRETS_KEY must be 32 bytes/);
    expect((error as Error).message).not.toContain(value);
  });

  it('reads a comma-separated SECRETS_KEY_PREVIOUS and names a bad item by position', () => {
    const a = key();
    const b = key();
    const config = loadConfig({ SECRETS_KEY_PREVIOUS: ` ${a.toString('hex')} , ${b.toString('base64')} ` });
    expect(config.secretsKeyPrevious.map((k) => k.toString('hex'))).toEqual([
      a.toString('hex'),
      b.toString('hex'),
    ]);
    expect(() => loadConfig({ SECRETS_KEY_PREVIOUS: `${a.toString('hex')},nope` })).toThrow(
      /SECRETS_KEY_PREVIOUS item 2 must be 32 bytes/,
    );
  });

  it('is required with NODE_ENV=production (like ADMIN_TOKEN)', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://h/db',
      ADMIN_TOKEN: 'x'.repeat(20),
    };
    expect(() => loadConfig(production)).toThrow(/SECRETS_KEY is required when NODE_ENV=production/);
    expect(loadConfig({ ...production, SECRETS_KEY: raw.toString('hex') }).secretsKey?.equals(raw)).toBe(
      true,
    );
  });
});

describe('openSecretBox', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'agency-secrets-'));
    dirs.push(dir);
    return join(dir, 'data');
  };

  it('uses SECRETS_KEY when set, with the previous keys', () => {
    const current = key();
    const previous = key();
    const box = openSecretBox(
      loadConfig({ SECRETS_KEY: current.toString('hex'), SECRETS_KEY_PREVIOUS: previous.toString('hex') }),
    );
    expect(box.keyIds).toEqual([keyIdOf(current), keyIdOf(previous)]);
  });

  it('generates the key into DATA_DIR once, mode 0600, and reuses it at the next start', () => {
    const dataDir = tempDir();
    const first = openSecretBox(loadConfig({ DATA_DIR: dataDir }));
    const path = join(dataDir, SECRETS_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(keyIdOf(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64'))).toBe(first.currentKeyId);
    const again = openSecretBox(loadConfig({ DATA_DIR: dataDir }));
    expect(again.currentKeyId).toBe(first.currentKeyId);
    expect(again.open(first.seal(SECRET, 'ctx'), 'ctx')).toBe(SECRET);
  });

  it('refuses to start on a damaged key file, naming it', () => {
    const dataDir = tempDir();
    openSecretBox(loadConfig({ DATA_DIR: dataDir }));
    writeFileSync(join(dataDir, SECRETS_KEY_FILE), 'garbage\n');
    expect(() => openSecretBox(loadConfig({ DATA_DIR: dataDir }))).toThrow(
      /SECRETS_KEY is unset and .*secrets\.key does not hold a 32-byte key/,
    );
  });

  it('keeps one in-process key for DATA_DIR=memory:// and for callers without config', () => {
    const a = openSecretBox(loadConfig({ DATA_DIR: 'memory://' }));
    const b = openSecretBox();
    expect(a.currentKeyId).toBe(b.currentKeyId);
  });
});
