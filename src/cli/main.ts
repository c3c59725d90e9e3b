/**
 * `taskboard`: administers a deployment without the API (bootstrap a tenant, issue keys, migrate,
 * serve). Exit codes: 0 done, 1 the operation failed, 2 the command line or configuration is wrong.
 * Errors are one line on stderr, never a stack trace (set TASKBOARD_DEBUG=1 to see one).
 */
import { realpathSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { DEFAULT_PURGE_AFTER_DAYS } from '../domain/attachments/purge.ts';
import { DomainError, ValidationError } from '../domain/shared/errors.ts';
import { BackupRefused } from '../storage/backup.ts';
import { MissingSchemaError } from '../storage/migrator.ts';
import { DatabaseUnreachableError } from '../storage/unavailable.ts';
import {
  backupCommand,
  bootstrapCommand,
  importCommand,
  keysCreateCommand,
  migrateAttachmentsCommand,
  migrateCommand,
  type Output,
  purgeAttachmentsCommand,
  reindexCommand,
  restoreCommand,
  serveCommand,
  setPasswordCommand,
} from './commands.ts';

/** A wrong command line: exit 2 with the message and a pointer to the help. */
class UsageError extends Error {}

const USAGE = `Usage: taskboard <command> [options]

Commands:
  bootstrap --company NAME --team NAME --email EMAIL --name FULLNAME [--password-stdin] [--json]
      Create what is missing of the user, the company (the user as owner) and the team (the user
      as member), and print a new API key for the user. Running it again reuses what exists.
      --password-stdin: also set the user's sign-in password, read from standard input.
  users set-password --email EMAIL --password-stdin [--json]
      Set or reset a user's sign-in password (read from standard input, 12 to 256 characters);
      every session of the user ends.
  keys create --email EMAIL [--name KEYNAME] [--json]
      Print a new API key for an existing user (key name defaults to "cli").
  migrate [--create] [--json]
      Apply the database migrations that are not applied yet. --create: also create the folder
      of a SQLite file that does not exist yet (otherwise a missing folder is refused).
  purge-attachments [--older-than-days N] [--json]
      Remove, with their files, attachments deleted more than N days ago (default 30; 0: all),
      and files no attachment names (or partial uploads) older than an hour; then events older
      than EVENT_RETENTION_DAYS (default 90).
  attachments migrate --to STORE [--json]
      Copy every attachment to another store (s3://bucket/prefix or file:./folder) under the same
      key, checking each SHA-256; run again to resume. It switches nothing: set ATTACHMENT_STORAGE
      to the new store once it reports success. Exits 1 when a file is missing or differs.
  reindex [--batch N] [--json]
      Rebuild the search index from the records, N rows per transaction (default 1000); safe
      while the server runs, and running it again changes nothing.
  backup --to FILE [--json]
      Copy the SQLite database (while the server runs) and its attachment files, or a note of
      their bucket, into a new archive FILE (.tar.gz). On PostgreSQL it refuses and names the
      documented procedure. Exits 1 when a file the database names is missing.
  restore --from FILE [--json]
      Restore such an archive into an empty data folder (DATABASE_URL's folder and UPLOAD_DIR);
      refuses a folder that holds anything.
  import trello|taskboard FILE --team ID [--as EMAIL] [--json]
      Import a board into the team: Trello's "Export as JSON" file, or a board export of
      Taskboard. The importer is the user EMAIL (default: the first owner of the team's
      company). Prints what came over, whom it matched and what it left out; exits 1 when the
      import failed (it then leaves nothing behind).
  serve
      Run the HTTP server (what npm start runs).

Options:
  --json        print one JSON object instead of text
  -h, --help    show this help (also after a command)

Configuration comes from the environment: DATABASE_URL (default sqlite:./data/taskboard.db),
HOST, PORT, UPLOAD_DIR, LOG_LEVEL, RATE_LIMIT_*, timeouts, metrics, CORS (see docs/operations.md).
Exit codes: 0 success, 1 the operation failed, 2 bad arguments or configuration.`;

const json = { type: 'boolean', default: false } as const;
const help = { type: 'boolean', short: 'h', default: false } as const;

const COMMANDS = {
  bootstrap: {
    options: {
      company: { type: 'string' },
      team: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      json,
      help,
    },
    required: ['company', 'team', 'email', 'name'],
  },
  'users set-password': {
    options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean', default: false }, json, help },
    required: ['email'],
  },
  'keys create': {
    options: { email: { type: 'string' }, name: { type: 'string' }, json, help },
    required: ['email'],
  },
  migrate: { options: { create: { type: 'boolean', default: false }, json, help }, required: [] },
  'attachments migrate': { options: { to: { type: 'string' }, json, help }, required: ['to'] },
  'purge-attachments': { options: { 'older-than-days': { type: 'string' }, json, help }, required: [] },
  reindex: { options: { batch: { type: 'string' }, json, help }, required: [] },
  backup: { options: { to: { type: 'string' }, json, help }, required: ['to'] },
  restore: { options: { from: { type: 'string' }, json, help }, required: ['from'] },
  'import trello': { options: { team: { type: 'string' }, as: { type: 'string' }, json, help }, required: ['team'], file: true },
  'import taskboard': { options: { team: { type: 'string' }, as: { type: 'string' }, json, help }, required: ['team'], file: true },
  serve: { options: { help }, required: [] },
} satisfies Record<string, { options: NonNullable<ParseArgsConfig['options']>; required: string[]; file?: true }>;

type CommandName = keyof typeof COMMANDS;

/** `keys create ...` → ['keys create', rest]; the one command with a sub-verb. */
function splitCommand(argv: string[]): [CommandName, string[]] {
  const [first, ...rest] = argv;
  if (first === 'keys') {
    const [verb, ...tail] = rest;
    if (verb === 'create') return ['keys create', tail];
    throw new UsageError(verb ? `unknown keys command "${verb}" (expected: keys create)` : 'keys needs a command: keys create');
  }
  if (first === 'attachments') {
    const [verb, ...tail] = rest;
    if (verb === 'migrate') return ['attachments migrate', tail];
    throw new UsageError(verb ? `unknown attachments command "${verb}" (expected: attachments migrate)` : 'attachments needs a command: attachments migrate');
  }
  if (first === 'import') {
    const [verb, ...tail] = rest;
    if (verb === 'trello' || verb === 'taskboard') return [`import ${verb}`, tail];
    throw new UsageError(verb ? `unknown import command "${verb}" (expected: import trello, import taskboard)` : 'import needs a source: import trello FILE');
  }
  if (first === 'users') {
    const [verb, ...tail] = rest;
    if (verb === 'set-password') return ['users set-password', tail];
    throw new UsageError(verb ? `unknown users command "${verb}" (expected: users set-password)` : 'users needs a command: users set-password');
  }
  if (first && Object.hasOwn(COMMANDS, first) && !first.includes(' ')) return [first as CommandName, rest];
  throw new UsageError(`unknown command "${first}"`);
}

function parse(command: CommandName, args: string[]): Record<string, string | boolean | undefined> {
  const spec: { options: NonNullable<ParseArgsConfig['options']>; required: string[]; file?: true } = COMMANDS[command];
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({ args, options: spec.options, strict: true, allowPositionals: spec.file === true });
    values = parsed.values as Record<string, string | boolean | undefined>;
    if (spec.file) {
      if (parsed.positionals.length !== 1 && !values.help) throw new UsageError(`${command}: name one FILE (got ${parsed.positionals.length})`);
      values.file = parsed.positionals[0];
    }
  } catch (error) {
    const e = error as Error & { code?: string };
    if (e.code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError(`${command}: ${oneLine(e.message)}`);
    throw error;
  }
  if (values.help) return values;
  const missing = spec.required.filter((name) => values[name] === undefined);
  if (missing.length) throw new UsageError(`${command}: missing ${missing.map((m) => `--${m}`).join(', ')}`);
  return values;
}

/** `--older-than-days`: a whole number of days, 0 or more (default 30). */
function wholeDays(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PURGE_AFTER_DAYS;
  if (!/^\d{1,6}$/.test(value.trim())) throw new UsageError(`purge-attachments: --older-than-days must be a whole number of days (got "${value}")`);
  return Number(value.trim());
}

function batchSize(value: string | undefined): number {
  if (value === undefined) return 1000;
  const n = /^\d{1,6}$/.test(value.trim()) ? Number(value.trim()) : 0;
  if (n < 1 || n > 100_000) throw new UsageError(`reindex: --batch must be a whole number from 1 to 100000 (got "${value}")`);
  return n;
}

function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

/** The message of an error as one line; some network errors (AggregateError) carry it inside. */
function describe(error: unknown): string {
  if (error instanceof AggregateError && !error.message && error.errors.length) return describe(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    const message = oneLine(error.message) || String(code ?? error.name);
    return message;
  }
  return oneLine(String(error));
}

/** Where a command line writes: the process's streams, or a test's buffers. */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** All of standard input (`--password-stdin`). */
  stdin?(): Promise<string>;
}

const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** The password given on standard input: its text without the one line end `echo` adds. */
async function passwordFromStdin(io: CommandIo): Promise<string> {
  if (!io.stdin) throw new UsageError('--password-stdin: no standard input');
  const text = (await io.stdin()).replace(/\r?\n$/, '');
  if (!text) throw new UsageError('--password-stdin: standard input is empty');
  return text;
}

/**
 * Runs one command line with the configuration in `env`; resolves to the exit code. It never ends
 * the process, so tests run it in-process (the entry point below sets the exit code).
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: CommandIo = processIo): Promise<number> {
  const print = (output: Output) => io.stdout('json' in output ? `${JSON.stringify(output.json)}\n` : output.lines.map((line) => `${line}\n`).join(''));
  if (argv.length === 0) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  try {
    const [command, args] = splitCommand(argv);
    const values = parse(command, args);
    if (values.help) {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    // a restore makes the database's folder: it is meant for a new one
    const config = loadConfig(env, { createDatabase: values.create === true || command === 'restore' });
    const str = (name: string) => values[name] as string;
    switch (command) {
      case 'bootstrap':
        print(
          await bootstrapCommand(config, {
            company: str('company'),
            team: str('team'),
            email: str('email'),
            name: str('name'),
            json: values.json === true,
            ...(values['password-stdin'] === true ? { password: await passwordFromStdin(io) } : {}),
          }),
        );
        return 0;
      case 'users set-password':
        if (values['password-stdin'] !== true)
          throw new UsageError('users set-password: --password-stdin is required (a password on the command line would show in the process list)');
        print(await setPasswordCommand(config, { email: str('email'), password: await passwordFromStdin(io), json: values.json === true }));
        return 0;
      case 'keys create':
        print(await keysCreateCommand(config, { email: str('email'), name: values.name as string | undefined, json: values.json === true }));
        return 0;
      case 'migrate':
        print(await migrateCommand(config, { json: values.json === true }));
        return 0;
      case 'purge-attachments':
        print(await purgeAttachmentsCommand(config, { olderThanDays: wholeDays(values['older-than-days'] as string | undefined), json: values.json === true }));
        return 0;
      case 'attachments migrate': {
        const output = await migrateAttachmentsCommand(config, { to: str('to'), json: values.json === true });
        print(output);
        return output.ok ? 0 : 1;
      }
      case 'reindex':
        print(await reindexCommand(config, { batch: batchSize(values.batch as string | undefined), json: values.json === true }));
        return 0;
      case 'backup': {
        const output = await backupCommand(config, { to: str('to'), json: values.json === true });
        print(output);
        return output.ok ? 0 : 1;
      }
      case 'restore':
        print(await restoreCommand(config, { from: str('from'), json: values.json === true }));
        return 0;
      case 'import trello':
      case 'import taskboard': {
        const source = command === 'import trello' ? 'trello' : 'taskboard';
        const output = await importCommand(config, {
          source,
          file: str('file'),
          team: str('team'),
          as: values.as as string | undefined,
          json: values.json === true,
        });
        print(output);
        return output.ok ? 0 : 1;
      }
      case 'serve':
        await serveCommand(config);
        return 0;
    }
  } catch (error) {
    if (env.TASKBOARD_DEBUG) io.stderr(`${error instanceof Error ? error.stack : String(error)}\n`);
    if (error instanceof UsageError) {
      io.stderr(`taskboard: ${error.message} (see taskboard --help)\n`);
      return 2;
    }
    if (error instanceof ConfigError || error instanceof MissingSchemaError) {
      io.stderr(`taskboard: configuration error: ${describe(error)}\n`);
      return 2;
    }
    if (error instanceof ValidationError) {
      io.stderr(`taskboard: invalid input: ${describe(error)}\n`);
      return 2;
    }
    if (error instanceof DatabaseUnreachableError) {
      io.stderr(`taskboard: ${describe(error)}\n`);
      return 1;
    }
    if (error instanceof DomainError || error instanceof BackupRefused) {
      io.stderr(`taskboard: ${describe(error)}\n`);
      return 1;
    }
    io.stderr(`taskboard: failed: ${describe(error)}\n`);
    return 1;
  }
}

/** Run as the entry point (bin/taskboard, npm start), not imported. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  return script !== undefined && realpathSync(script) === realpathSync(import.meta.filename);
}

if (isEntryPoint()) {
  const code = await main(process.argv.slice(2));
  if (code !== 0) {
    process.exitCode = code;
    // A command that failed (a server that failed to start) may hold connections open; do not
    // linger after saying so.
    setTimeout(() => process.exit(code), 2000).unref();
  }
}
