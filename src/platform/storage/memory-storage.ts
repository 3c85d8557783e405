import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { isSafeKey } from './keys.ts';
import type { Storage, StoredObject } from './storage.ts';

interface Entry {
  bytes: Buffer;
  contentType: string;
  etag: string;
}

/** Objects in a map for the life of the process: `DATA_DIR=memory://` without a STORAGE_DIR (tests, demos). */
export class MemoryStorage implements Storage {
  readonly driver = 'memory' as const;
  private readonly objects = new Map<string, Entry>();

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    if (!isSafeKey(key)) throw new Error(`storage key ${JSON.stringify(key)} is not a safe relative path`);
    const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
    this.objects.set(key, { bytes: Buffer.from(bytes), contentType, etag });
  }

  async get(key: string): Promise<StoredObject | null> {
    const entry = this.objects.get(key);
    if (!entry) return null;
    return {
      body: Readable.from([entry.bytes]),
      size: entry.bytes.length,
      contentType: entry.contentType,
      etag: entry.etag,
    };
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((key) => key.startsWith(prefix));
  }

  publicUrl(): string | null {
    return null;
  }

  async close(): Promise<void> {
    this.objects.clear();
  }
}
