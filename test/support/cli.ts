/**
 * The `taskboard` command: run in-process through its `main` (fast: no Node start, no module
 * loading per case), or as a real process the way a deployer or an operator runs it.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';

/** The project's root folder. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** This environment plus `env`, with logs silent and no debug output. */
function commandEnv(env: Record<string, string>): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'silent', ...env };
  delete merged.TASKBOARD_DEBUG;
  return merged;
}

/** Runs `command` as a process in `cwd` with this environment plus `env`: its exit code and output. */
export function runCommand(command: string, args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<CommandRun> {
  const childEnv = commandEnv(env);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `taskboard <args>` in this process, with `env` (e.g. DATABASE_URL) added: its exit code and output. */
export async function runTaskboard(args: string[], env: Record<string, string>, stdin?: string): Promise<CommandRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, commandEnv(env), {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    ...(stdin !== undefined ? { stdin: async () => stdin } : {}),
  });
  return { code, stdout, stderr };
}

/**
 * `taskboard serve` as a real process with `env` (listening on port 0): the process and the address
 * it logs once it listens. The caller ends it (SIGKILL to crash it).
 */
export async function serveInChild(env: Record<string, string | undefined>): Promise<{ server: ChildProcessByStdio<null, Readable, null>; address: string }> {
  const server = spawn(join(ROOT, 'bin/taskboard'), ['serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  server.stdout.setEncoding('utf8');
  try {
    const address = await new Promise<string>((resolve, reject) => {
      server.once('exit', (code) => reject(new Error(`server exited (${code}): ${output}`)));
      server.stdout.on('data', (chunk: string) => {
        output += chunk;
        const found = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (found) resolve(found[1] as string);
      });
    });
    server.removeAllListeners('exit');
    return { server, address };
  } catch (error) {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    throw error;
  }
}
