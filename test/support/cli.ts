/** The `taskboard` command run as a real process, the way a deployer or an operator runs it. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The project's root folder. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` in `cwd` with this environment plus `env` (logs silent, no debug output): its exit code and output. */
export function runCommand(command: string, args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<CommandRun> {
  const childEnv: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'silent', ...env };
  delete childEnv.TASKBOARD_DEBUG;
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

/** `taskboard <args>` through the entry point, the way npm start and npm run migrate do it, with `env` (e.g. DATABASE_URL) added. */
export function runTaskboard(args: string[], env: Record<string, string>): Promise<CommandRun> {
  return runCommand(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], env);
}
