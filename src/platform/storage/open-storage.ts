import type { Config } from '../../config.ts';
import { LocalStorage } from './local-storage.ts';
import { MemoryStorage } from './memory-storage.ts';
import { S3Storage } from './s3-storage.ts';
import type { Storage } from './storage.ts';

/** What a storage is opened from: the STORAGE_* and S3_* settings. */
export type StorageSettings = Pick<Config, 'storageDriver' | 'storageDir' | 's3'>;

const opened = new WeakMap<object, Storage>();

/**
 * The storage of an app's configuration, opened once per configuration object: the routes that
 * upload, serve and sweep media share one instance (an in-memory storage must be the same map).
 */
export function storageFor(settings: StorageSettings): Storage {
  let storage = opened.get(settings);
  if (storage === undefined) {
    storage = openStorage(settings);
    opened.set(settings, storage);
  }
  return storage;
}

function openStorage(settings: StorageSettings): Storage {
  if (settings.storageDriver === 's3') {
    if (settings.s3 === undefined) throw new Error('STORAGE_DRIVER=s3 needs the S3_* settings');
    return new S3Storage(settings.s3);
  }
  return settings.storageDir === 'memory://' ? new MemoryStorage() : new LocalStorage(settings.storageDir);
}
