import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileOf } from './keys.ts';
import { contentTypeOf, type Storage, type StoredObject } from './storage.ts';

const isMissing = (error: unknown) => (error as { code?: string }).code === 'ENOENT';

/**
 * Objects as files under one folder (STORAGE_DIR, by default DATA_DIR/media): a key is a relative
 * path. A file is written beside its place and renamed into it, so a reader never sees half of it.
 */
export class LocalStorage implements Storage {
  readonly driver = 'local' as const;

  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, bytes: Buffer, _contentType: string): Promise<void> {
    const path = fileOf(this.root, key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomBytes(6).toString('hex')}.partial`;
    try {
      await writeFile(partial, bytes, { flag: 'wx' });
      await rename(partial, path);
    } catch (error) {
      await unlink(partial).catch(() => undefined);
      throw error;
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    const path = fileOf(this.root, key);
    try {
      const info = await stat(path);
      if (!info.isFile()) return null;
      // Objects are written once and never changed: the key and size name the bytes.
      const etag = createHash('sha256').update(`${key}\0${info.size}`).digest('base64url').slice(0, 27);
      return {
        body: createReadStream(path),
        size: info.size,
        contentType: contentTypeOf(key),
        etag: `"${etag}"`,
      };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = fileOf(this.root, key);
    try {
      await unlink(path);
    } catch (error) {
      if (!isMissing(error)) throw error;
      return;
    }
    // Empty folders go too (a deleted photo's, then its listing's), up to the root; a folder that
    // is not empty (or that another writer just filled) stops the walk.
    let folder = dirname(path);
    while (folder !== this.root && folder.startsWith(this.root + sep)) {
      try {
        await rmdir(folder);
      } catch {
        break;
      }
      folder = dirname(folder);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const folder = fileOf(this.root, prefix.replace(/\/+$/, ''));
    try {
      const entries = await readdir(folder, { recursive: true, withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile() && !entry.name.endsWith('.partial'))
        .map((entry) => relative(this.root, join(entry.parentPath, entry.name)).split(sep).join('/'));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  publicUrl(): string | null {
    return null;
  }

  async close(): Promise<void> {}
}
