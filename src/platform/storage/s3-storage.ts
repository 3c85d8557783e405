import type * as S3Sdk from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import type { Config } from '../../config.ts';
import { isSafeKey } from './keys.ts';
import type { Storage, StoredObject } from './storage.ts';

export type S3Settings = NonNullable<Config['s3']>;

type Sdk = typeof S3Sdk;

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * S3-compatible object storage (AWS S3, MinIO, Cloudflare R2, Backblaze B2, ...) through the AWS SDK,
 * loaded on first use so a service on local disk never pays for it. Objects carry their content type
 * and the long-lived Cache-Control, so a bucket or CDN serving them directly (S3_PUBLIC_BASE_URL)
 * answers as GET /media/{key} does.
 */
export class S3Storage implements Storage {
  readonly driver = 's3' as const;
  private client: Promise<{ sdk: Sdk; client: S3Sdk.S3Client }> | undefined;

  constructor(private readonly settings: S3Settings) {}

  private connect() {
    this.client ??= import('@aws-sdk/client-s3').then((sdk) => {
      const { region, endpoint, forcePathStyle, accessKeyId, secretAccessKey } = this.settings;
      const client = new sdk.S3Client({
        region,
        endpoint,
        forcePathStyle,
        // Unset: the SDK's own chain (environment, shared files, instance or task role).
        credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
        // Checksums only where S3 requires them: several S3-compatible stores refuse the SDK's
        // default CRC32 trailers.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { sdk, client };
    });
    return this.client;
  }

  private checked(key: string): string {
    if (!isSafeKey(key)) throw new Error(`storage key ${JSON.stringify(key)} is not a safe relative path`);
    return key;
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const { sdk, client } = await this.connect();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.checked(key),
        Body: bytes,
        ContentType: contentType,
        CacheControl: IMMUTABLE,
      }),
    );
  }

  async get(key: string): Promise<StoredObject | null> {
    const { sdk, client } = await this.connect();
    try {
      const answer = await client.send(
        new sdk.GetObjectCommand({ Bucket: this.settings.bucket, Key: this.checked(key) }),
      );
      if (!(answer.Body instanceof Readable)) throw new Error('S3 GetObject answered without a stream');
      return {
        body: answer.Body,
        size: answer.ContentLength ?? 0,
        contentType: answer.ContentType ?? 'application/octet-stream',
        etag: answer.ETag ?? `"${key}"`,
      };
    } catch (error) {
      if (error instanceof sdk.NoSuchKey || (error as { name?: string }).name === 'NotFound') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.connect();
    // S3 answers 204 for a key that is not there: deleting twice is fine.
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.checked(key) }));
  }

  async list(prefix: string): Promise<string[]> {
    const { sdk, client } = await this.connect();
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new sdk.ListObjectsV2Command({
          Bucket: this.settings.bucket,
          Prefix: this.checked(prefix.replace(/\/+$/, '')) + '/',
          ContinuationToken: token,
        }),
      );
      for (const item of page.Contents ?? []) if (item.Key) keys.push(item.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  publicUrl(key: string): string | null {
    const base = this.settings.publicBaseUrl;
    return base === undefined ? null : `${base}/${key}`;
  }

  async close(): Promise<void> {
    if (this.client) (await this.client).client.destroy();
  }
}
