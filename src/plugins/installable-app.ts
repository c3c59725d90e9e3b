import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** A file of the installable app, read once at start: its bytes and the headers it is sent with. */
export interface InstallableFile {
  body: Buffer;
  headers: Record<string, string>;
}

const ICON_TYPES: Record<string, string> = { '.png': 'image/png', '.svg': 'image/svg+xml', '.ico': 'image/x-icon' };

/**
 * The files that make the web app installable, by path: the manifest, the service worker and the
 * icons of the build in `dir` (vite-plugin-pwa writes them beside index.html). Their names carry no
 * hash, so none is cached immutably: the worker and the manifest are revalidated on every check
 * (a browser must see a new worker at once, or it keeps an old version), the icons after a day.
 * The worker runs under the CSP of its own answer: the page's, whose `connect-src 'self'` lets it
 * fetch the app's files and the API's reads (the API's `default-src 'none'` would forbid both).
 */
export function installableFiles(dir: string, pageSecurityHeaders: Record<string, string>): Map<string, InstallableFile> {
  const files = new Map<string, InstallableFile>();
  const add = (path: string, file: string, headers: Record<string, string>) => {
    const body = readFileSync(file);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    files.set(path, { body, headers: { ...headers, ETag: etag } });
  };
  const worker = join(dir, 'sw.js');
  if (existsSync(worker)) add('/sw.js', worker, { ...pageSecurityHeaders, 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
  const manifest = join(dir, 'manifest.webmanifest');
  if (existsSync(manifest)) add('/manifest.webmanifest', manifest, { 'Content-Type': 'application/manifest+json', 'Cache-Control': 'no-cache' });
  const icons = join(dir, 'icons');
  if (existsSync(icons))
    for (const name of readdirSync(icons)) {
      const type = ICON_TYPES[extname(name)];
      if (type) add(`/icons/${name}`, join(icons, name), { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
    }
  return files;
}

/** Whether a conditional GET's `If-None-Match` names the file's current version (a 304 then). */
export function unchanged(ifNoneMatch: string | undefined, file: InstallableFile): boolean {
  return ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.headers.ETag);
}
