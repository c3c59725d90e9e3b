/**
 * @taskboard/client as a project outside this repository gets it: `npm pack` (whose prepack builds
 * dist/ with tsc), then an offline install of the tarball into a fresh project with an empty npm
 * cache. There (a) a plain Node ESM script run by the Node outside this repository imports it and
 * calls a tiny local HTTP server, (b) tsc with `moduleResolution: bundler` type-checks a file that
 * imports it, as a browser app's build does, and (c) esbuild bundles that use for the browser.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const execFileAsync = promisify(execFile);
const PACKAGE_DIR = resolve(import.meta.dirname, '..');
const ROOT = resolve(PACKAGE_DIR, '../..');
const TIMEOUT_MS = 120_000;

/** The first `node` on PATH outside this repository (with-node.sh may put a Node of its own first): what a plain project runs. */
function outsideNode(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || resolve(dir).startsWith(ROOT + sep)) continue;
    try {
      accessSync(join(dir, 'node'), constants.X_OK);
      return join(dir, 'node');
    } catch {
      // not here
    }
  }
  return process.execPath;
}

/** Where `name` is installed as seen from `from`: the folder Node's resolution would find. */
function installedDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed: run npm install`);
  }
}

function manifest(dir: string): { name: string; version: string; dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}

/** The installed folders of a package's runtime dependencies, and of theirs. */
function dependencyClosure(dir: string, found = new Map<string, string>()): Map<string, string> {
  for (const name of Object.keys(manifest(dir).dependencies ?? {})) {
    if (found.has(name)) continue;
    found.set(name, installedDir(name, dir));
    dependencyClosure(found.get(name) as string, found);
  }
  return found;
}

/** The environment of a command run as outside this repository: none of `npm test`'s npm_* settings, no Node options. */
function outsideEnv(cache: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS'));
  return { ...env, npm_config_cache: cache, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

async function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await execFileAsync('npm', args, { cwd, env, timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** The tarball names `npm pack --json` wrote. */
function packed(stdout: string): string[] {
  return (JSON.parse(stdout) as { filename: string }[]).map((entry) => entry.filename);
}

describe('@taskboard/client packed and installed outside the repository', () => {
  let folder: string;
  let project: string;
  let tarball: string;
  let server: Server;
  let baseUrl: string;
  const seen: IncomingHttpHeaders[] = [];

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'taskboard-client-pack-'));
    const cache = join(folder, 'npm-cache');
    const env = outsideEnv(cache);
    [tarball] = packed(await npm(['pack', '--json', '--pack-destination', folder], PACKAGE_DIR, env)) as [string];
    // Its runtime dependencies as the registry would serve them, packed from this repository's
    // install, so that the install below needs neither the network nor a filled npm cache.
    const dependencies = dependencyClosure(PACKAGE_DIR);
    const dependencyTarballs = dependencies.size
      ? packed(await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', folder, ...dependencies.values()], folder, env))
      : [];

    project = join(folder, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'outside-project', version: '1.0.0', private: true, type: 'module' }));
    await npm(
      ['install', '--offline', '--no-audit', '--no-fund', join(folder, tarball), ...dependencyTarballs.map((file) => join(folder, file))],
      project,
      env,
    );

    server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(req.url === '/api/v1/me' ? 200 : 404, {
        'content-type': 'application/json',
        RateLimit: '"very-low";r=9;t=1',
        ETag: '"me-1"',
      });
      res.end(JSON.stringify(req.url === '/api/v1/me' ? { message: 'Me', user: { _id: 'u1', fullName: 'Olive Owner' } } : { message: 'Not found' }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('in this repository resolves to its TypeScript source, so nothing needs building first', () => {
    assert.equal(import.meta.resolve('@taskboard/client'), new URL('../src/index.ts', import.meta.url).href);
  });

  it('packs its built JavaScript and declarations only, with openapi-fetch its one runtime dependency', async () => {
    const listed = JSON.parse(await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], PACKAGE_DIR, outsideEnv(join(folder, 'npm-cache'))))[0] as {
      files: { path: string }[];
    };
    const files = listed.files.map((file) => file.path).sort();
    assert.deepEqual(files, ['dist/index.d.ts', 'dist/index.js', 'dist/schema.d.ts', 'dist/schema.js', 'package.json']);
    const installed = manifest(join(project, 'node_modules/@taskboard/client'));
    assert.equal((installed as { private?: boolean }).private, undefined, 'publishable');
    assert.deepEqual(Object.keys(installed.dependencies ?? {}), ['openapi-fetch']);
  });

  it('is imported and called by a plain Node ESM script run by the Node outside the repository', async (t) => {
    const node = outsideNode();
    const { stdout: version } = await execFileAsync(node, ['--version']);
    t.diagnostic(`${node} ${version.trim()}`);
    assert.ok(Number(version.trim().slice(1).split('.')[0]) >= 20, `the package claims Node >= 20; ${node} is ${version.trim()}`);
    writeFileSync(
      join(project, 'main.mjs'),
      [
        "import { createTaskboardClient } from '@taskboard/client';",
        "const api = createTaskboardClient({ baseUrl: process.argv[2], apiKey: 'tb_outside' });",
        "const { data, response } = await api.GET('/api/v1/me');",
        "console.log(JSON.stringify({ resolved: import.meta.resolve('@taskboard/client'), status: response.status, data, rateLimit: api.rateLimit }));",
      ].join('\n'),
    );
    const { stdout } = await execFileAsync(node, ['main.mjs', baseUrl], { cwd: project, env: outsideEnv(join(folder, 'npm-cache')), timeout: TIMEOUT_MS });
    const answer = JSON.parse(stdout);
    assert.ok(answer.resolved.endsWith('/project/node_modules/@taskboard/client/dist/index.js'), `the installed copy: ${answer.resolved} (${version.trim()})`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.data, { message: 'Me', user: { _id: 'u1', fullName: 'Olive Owner' } });
    assert.deepEqual(answer.rateLimit, { tier: 'very-low', remaining: 9, resetIn: 1 });
    assert.equal(seen.at(-1)?.authorization, 'Bearer tb_outside');
  });

  it('type-checks with moduleResolution bundler, its paths and schemas typed', async () => {
    writeFileSync(
      join(project, 'app.ts'),
      [
        "import { createTaskboardClient, type Card, type TaskboardClient } from '@taskboard/client';",
        "const api: TaskboardClient = createTaskboardClient({ baseUrl: location.origin, apiKey: 'tb_browser' });",
        'export async function firstCardName(listId: string): Promise<string | undefined> {',
        "  const { data } = await api.GET('/api/v1/lists/{listId}/cards', { params: { path: { listId } } });",
        '  return data?.cards[0]?.name;',
        '}',
        "export const named: Pick<Card, 'name'> = { name: 'A card' };",
        '// @ts-expect-error: not a path of the API, so the types are real',
        "export const wrong = api.GET('/api/v1/no-such-route');",
        "document.title = String(api.rateLimit?.remaining ?? '');",
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['app.ts'],
      }),
    );
    // The TypeScript the package itself is built with, as a separate app would have its own.
    const tsc = join(installedDir('typescript', PACKAGE_DIR), 'bin/tsc');
    const checked = await execFileAsync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, timeout: TIMEOUT_MS }).catch((error) => error);
    assert.equal(checked.code ?? 0, 0, `tsc: ${checked.stdout}${checked.stderr}`);
  });

  it('bundles for the browser', async () => {
    writeFileSync(
      join(project, 'browser.js'),
      "import { createTaskboardClient } from '@taskboard/client';\nexport const api = createTaskboardClient({ baseUrl: location.origin, apiKey: 'tb_browser' });\n",
    );
    const result = await build({
      entryPoints: [join(project, 'browser.js')],
      absWorkingDir: project,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    assert.deepEqual(result.errors, []);
    const text = result.outputFiles[0]?.text ?? '';
    assert.ok(text.includes('Idempotency-Key') && text.includes('querySerializer'), 'our layer and openapi-fetch are in the bundle');
    assert.doesNotMatch(text, /from\s*["']node:|require\(["']/, 'no Node built-ins');
  });
});
