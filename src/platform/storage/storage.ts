import type { Readable } from 'node:stream';

/** One stored object, as `get` opens it. */
export interface StoredObject {
  body: Readable;
  size: number;
  contentType: string;
  /** A strong validator of the bytes, quoted (`"…"`), for ETag / If-None-Match. */
  etag: string;
}

/**
 * Where uploaded media lives (decision 0233): keys are `/`-separated relative paths that callers
 * make themselves (never from client input unchecked); objects are written once and never changed.
 */
export interface Storage {
  readonly driver: 'local' | 'memory' | 's3';
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The object, or null when there is none under `key`. */
  get(key: string): Promise<StoredObject | null>;
  /** Removes the object; nothing happens when there is none. */
  delete(key: string): Promise<void>;
  /** Every key under `prefix` (a folder: ends with `/`), in no particular order. */
  list(prefix: string): Promise<string[]>;
  /**
   * The object's public address when the storage serves it itself (S3_PUBLIC_BASE_URL, a CDN or a
   * public bucket); null when the service streams it at GET /media/{key}.
   */
  publicUrl(key: string): string | null;
  close(): Promise<void>;
}

/** Content types by file extension: the local drivers keep no metadata beside the bytes. */
export function contentTypeOf(key: string): string {
  const extension = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  return (
    { webp: 'image/webp', jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png' }[extension] ??
    'application/octet-stream'
  );
}
