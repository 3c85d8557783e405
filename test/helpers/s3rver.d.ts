// s3rver ships no types: the part of its API the S3 storage test uses (a fake S3 server, dev only).
declare module 's3rver' {
  // CommonJS (`module.exports = S3rver`).
  class S3rver {
    constructor(options: S3rver.Options);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
  namespace S3rver {
    export interface Options {
      port?: number;
      address?: string;
      silent?: boolean;
      directory: string;
      configureBuckets?: { name: string; configs?: unknown[] }[];
    }
  }
  export = S3rver;
}
