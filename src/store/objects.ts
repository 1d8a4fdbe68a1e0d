/**
 * Object storage (S3 and servers that speak its protocol: MinIO, Ceph, R2, ...) for the bytes of
 * templates and job results; the database keeps their metadata and a pointer. The AWS SDK is
 * loaded only when a bucket is configured.
 */
import { StorageUnavailableError } from '../errors.js';

export interface ObjectStorageConfig {
  bucket: string;
  /** Keys start with it, so one bucket can serve several installations. */
  prefix: string;
  /** A server other than AWS (path-style addressing); absent: AWS in `region`. */
  endpoint?: string;
  region: string;
  /** Absent: the SDK's own chain (environment, instance role, ...). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /**
   * How long the bucket may stay silent: connecting, or between two pieces of an answer (a large
   * object may take longer in all, while it flows). A ping has at most 3 s. Default 10 s.
   */
  timeoutMs?: number;
}

export interface StoredObject {
  key: string;
  modifiedAt: Date;
}

/** The four calls docsmith makes of a bucket. */
export interface ObjectStorage {
  readonly prefix: string;
  put(key: string, bytes: Buffer): Promise<void>;
  /** The object's bytes; throws when it is gone. */
  get(key: string): Promise<Buffer>;
  /** Removes the object; no error when it is gone. */
  delete(key: string): Promise<void>;
  /** Every object under the prefix. */
  list(): Promise<StoredObject[]>;
  /** Resolves when the bucket answers. */
  ping(): Promise<void>;
}

/** A failure of the bucket as a 503 that says so (the request may be sent again). */
function unavailable(error: unknown, doing: string): StorageUnavailableError {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  const what = [e.name, e.$metadata?.httpStatusCode, e.code].filter(Boolean).join(' ');
  return new StorageUnavailableError(
    `object storage ${doing} failed: ${what ? `${what}: ` : ''}${e.message ?? String(error)}`,
    'the object storage is not reachable or refused the request',
  );
}

export async function openObjectStorage(config: ObjectStorageConfig): Promise<ObjectStorage> {
  // The SDK warns on stderr, outside the JSON log, that its releases after January 2027 need
  // Node.js 22; the version pinned here works on 20.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const s3 = await import('@aws-sdk/client-s3');
  const timeoutMs = config.timeoutMs ?? 10_000;
  const client = new s3.S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
    // Checksums only where S3 requires them: servers that speak the protocol do not all know the newer ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A bucket that stops answering (a stall, not a refusal) must not hold requests without end.
    maxAttempts: 2,
    requestHandler: { connectionTimeout: Math.min(timeoutMs, 5_000), requestTimeout: timeoutMs, throwOnRequestTimeout: true },
  });
  const Bucket = config.bucket;
  const call = async <T>(doing: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw unavailable(error, doing);
    }
  };
  return {
    prefix: config.prefix,
    put: (key, bytes) => call('writing', async () => void (await client.send(new s3.PutObjectCommand({ Bucket, Key: key, Body: bytes })))),
    get: (key) =>
      call('reading', async () => {
        const answer = await client.send(new s3.GetObjectCommand({ Bucket, Key: key }));
        return Buffer.from(await answer.Body!.transformToByteArray());
      }),
    delete: (key) => call('deleting', async () => void (await client.send(new s3.DeleteObjectCommand({ Bucket, Key: key })))),
    list: () =>
      call('listing', async () => {
        const found: StoredObject[] = [];
        let token: string | undefined;
        do {
          const page = await client.send(new s3.ListObjectsV2Command({ Bucket, Prefix: config.prefix, ContinuationToken: token }));
          for (const o of page.Contents ?? []) if (o.Key) found.push({ key: o.Key, modifiedAt: o.LastModified ?? new Date(0) });
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
        return found;
      }),
    ping: () =>
      call(
        'checking the bucket',
        async () =>
          void (await client.send(new s3.HeadBucketCommand({ Bucket }), { abortSignal: AbortSignal.timeout(Math.min(timeoutMs, 3_000)) })),
      ),
  };
}
