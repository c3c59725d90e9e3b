/** Where attachments go in a bucket, read from `ATTACHMENT_STORAGE` without loading the S3 SDK. */
export interface S3Location {
  bucket: string;
  /** Folder in the bucket every key goes under: '' or ending in '/'. */
  prefix: string;
}

/** `s3://bucket/optional/prefix` → bucket and prefix (undefined when the text is not such a URL). */
export function parseS3Url(text: string): S3Location | undefined {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(text);
  if (!match) return undefined;
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: match[1] as string, prefix: prefix ? `${prefix}/` : '' };
}
