// Run once while the image is built: starts the server on a scratch SQLite file, waits until it is
// ready, and stops it, so Node's compile cache (NODE_COMPILE_CACHE) holds the stripped TypeScript
// and the bytecode of every module a start loads. Each later start reads them instead of compiling.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';

const folder = mkdtempSync('/tmp/prime-');
const port = 3999;
const server = spawn('taskboard', ['serve'], {
  stdio: 'inherit',
  env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: `sqlite:${folder}/taskboard.db`, UPLOAD_DIR: `${folder}/uploads`, LOG_LEVEL: 'warn' },
});
const exited = once(server, 'exit');
const deadline = Date.now() + 180_000;
let ready = false;
while (!ready && Date.now() < deadline && server.exitCode === null) {
  ready = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) }).then((answer) => answer.ok, () => false);
  if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
}
server.kill('SIGTERM');
await exited;
rmSync(folder, { recursive: true, force: true });
if (!ready) {
  console.error('prime-compile-cache: the server did not become ready');
  process.exit(1);
}
