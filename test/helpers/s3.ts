import S3rver from 's3rver';
import { tempDir } from './server.js';
import type { ObjectStorageConfig } from '../../src/store/objects.js';

export interface TestS3 {
  /** Where its bucket's files are. */
  dir: string;
  url: string;
  config: Omit<ObjectStorageConfig, 'prefix'>;
  /** The environment a server uses it with. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A local server speaking the S3 protocol (s3rver) with one bucket, on a free port. */
export async function startS3(bucket = 'docsmith-test'): Promise<TestS3> {
  const dir = tempDir();
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory: dir,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const url = `http://127.0.0.1:${port}`;
  let open = true;
  return {
    dir,
    url,
    config: { bucket, endpoint: url, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
    env: {
      DOCSMITH_S3_BUCKET: bucket,
      DOCSMITH_S3_ENDPOINT: url,
      DOCSMITH_S3_ACCESS_KEY_ID: 'S3RVER',
      DOCSMITH_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      if (!open) return;
      open = false;
      await server.close();
    },
  };
}
