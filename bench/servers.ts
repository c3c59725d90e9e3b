/**
 * The bench's servers: the app's server script built as `npm start` builds the server, and each
 * server a child process reporting its port over IPC (./protocol.ts), stopped with the bench.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, Target } from './protocol.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The servers running, so that a stopped bench stops them all. */
export const children = new Set<ChildProcess>();

export interface Server {
  child: ChildProcess;
  port: number;
  targets: Target[];
  description: string;
}

/**
 * The app's server script (bench/serve-app.ts) built into `out` as `npm start` builds the server
 * (scripts/build-server.sh: one JavaScript bundle, the packages left in node_modules).
 */
export function buildServeApp(out: string): string {
  rmSync(out, { recursive: true, force: true });
  const flags = [
    '--bundle',
    '--platform=node',
    '--format=esm',
    '--target=node22',
    '--packages=external',
    '--splitting',
    '--minify-whitespace',
    '--charset=ascii',
  ];
  execFileSync(join(root, 'node_modules', '.bin', 'esbuild'), ['bench/serve-app.ts', ...flags, `--outdir=${out}`, '--log-level=warning'], {
    cwd: root,
    stdio: 'inherit',
  });
  cpSync(join(root, 'src', 'storage', 'sqlite-checkpoint-worker.js'), join(out, 'sqlite-checkpoint-worker.js'));
  return join(out, 'serve-app.js');
}

/** The app's server script built once per run of the bench. */
let builtApp: string | undefined;
function buildApp(): string {
  builtApp ??= buildServeApp(join(root, 'dist', 'bench'));
  return builtApp;
}

/** Starts a bench server; `nodeOptions` are given to Node before the script (e.g. `--cpu-prof`). */
export function startServer(script: string, env: Record<string, string>, nodeOptions: readonly string[] = []): Promise<Server> {
  // The app runs as `npm start` runs the server: built, through scripts/serve.sh (its Node options);
  // the bare route as Node runs a script.
  const [command, args] =
    script === 'bench/serve-app.ts' ? ['bash', [join(root, 'scripts', 'serve.sh'), ...nodeOptions, buildApp()]] : [process.execPath, [...nodeOptions, script]];
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, BENCH_ROOT: root, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not report ready within 120 s`)), 120_000);
    child.on('message', (message: ChildMessage) => {
      clearTimeout(timer);
      if (message.type === 'ready') resolve({ child, port: message.port, targets: message.targets, description: message.description });
      else reject(new Error(`${script} could not start:\n${message.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}) before it was ready`));
    });
    child.once('error', reject);
  });
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(force);
}

export async function stopAll() {
  await Promise.all([...children].map((child) => stopServer(child)));
}

/** The resident set of a process in MB, read from /proc (Linux); undefined elsewhere. */
export function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) a process has used, from /proc (Linux); undefined elsewhere. The
 * server's CPU per request is what a loaded machine (the load generator shares it) disturbs least.
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // fields after the command name (which may hold spaces, so split after its closing parenthesis)
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
    const ticks = Number(fields?.[11]) + Number(fields?.[12]);
    return Number.isFinite(ticks) ? ticks / CLOCK_TICKS : undefined;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ: /proc counts CPU time in these ticks. */
const CLOCK_TICKS = 100;
