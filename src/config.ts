import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import envSchema from 'env-schema';
import { type Static, type TSchema, Type } from 'typebox';
import { databaseFileOf, parseDatabaseUrl } from './storage/database-url.ts';
import { DEFAULT_DATABASE_TIMEOUTS, DEFAULT_POOL_SIZE } from './storage/postgres-pool.ts';
import { parseS3Url, type S3Location } from './storage/s3-location.ts';

/** The rate-limit tiers of the contract, cheapest last. */
export const TIERS = ['secure', 'high', 'medium', 'low', 'very-low'] as const;
export type Tier = (typeof TIERS)[number];

export const DEFAULT_TIER_LIMITS: Record<Tier, number> = {
  secure: 5,
  high: 15,
  medium: 35,
  low: 75,
  'very-low': 140,
};

/** Days the event record keeps an event (EVENT_RETENTION_DAYS). */
export const DEFAULT_EVENT_RETENTION_DAYS = 90;
export const DEFAULT_DATABASE_URL = 'sqlite:./data/taskboard.db';
export const DEFAULT_REDIS_KEY_PREFIX = 'taskboard:ratelimit:';

export class ConfigError extends Error {}

interface ReadOptions {
  createDatabase: boolean;
}

/**
 * One environment variable: its name, its TypeBox schema (type, bounds, default; env-schema checks
 * and coerces it) and, where the value the code wants is not the variable's text, how to read it.
 * `whole`: a whole number written in digits (ajv alone would also take "1e3" or "0x10").
 */
interface Variable<T> {
  readonly variable: string;
  readonly schema: TSchema;
  readonly kind: 'whole' | 'flag' | 'text';
  /** Its value is never repeated in a message (tokens, passwords). */
  readonly secret?: true;
  read(value: unknown, options: ReadOptions): T;
}

function variable<S extends TSchema, T = Static<S>>(
  name: string,
  schema: S,
  read?: (value: Static<S>, options: ReadOptions) => T,
  kind: Variable<T>['kind'] = 'text',
): Variable<T> {
  return { variable: name, schema, kind, read: (read ?? ((value: unknown) => value)) as Variable<T>['read'] };
}

function whole(name: string, fallback: number, minimum: number, maximum: number): Variable<number> {
  return variable(name, Type.Integer({ minimum, maximum, default: fallback }), undefined, 'whole');
}

function optionalWhole(name: string, minimum: number, maximum: number): Variable<number | undefined> {
  return variable(name, Type.Optional(Type.Integer({ minimum, maximum })), undefined, 'whole');
}

function flag(name: string, fallback: boolean): Variable<boolean> {
  return variable(name, Type.Boolean({ default: fallback, description: 'true or false' }), undefined, 'flag');
}

function text(name: string, fallback: string, options: { pattern?: string; description?: string } = {}): Variable<string> {
  return variable(name, Type.String({ default: fallback, ...options }));
}

/** A secret: its value is never repeated in a message. */
function optionalSecret(name: string, pattern: string, description: string): Variable<string | undefined> {
  return { ...variable(name, Type.Optional(Type.String({ pattern, description }))), secret: true };
}

/**
 * A SQLite file whose folder is missing is most likely a typo, which would silently start an empty
 * database: refused unless asked for (`taskboard migrate --create`). The default `./data` folder is
 * created, so a fresh clone starts with `npm start`.
 */
function databaseUrl(url: string, { createDatabase }: ReadOptions): string {
  let parsed;
  try {
    parsed = parseDatabaseUrl(url);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const file = databaseFileOf(parsed);
  if (file !== undefined && url !== DEFAULT_DATABASE_URL && !createDatabase) {
    const folder = dirname(resolve(file));
    if (!existsSync(folder)) {
      throw new ConfigError(`DATABASE_URL names a SQLite file in ${folder}, a folder that does not exist (create it, or run taskboard migrate --create)`);
    }
  }
  return url;
}

function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError('REDIS_URL must be a URL like redis://host:6379 or rediss://host:6380');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError(`REDIS_URL must start with redis:// or rediss:// (got "${parsed.protocol}")`);
  }
  if (!parsed.hostname) throw new ConfigError('REDIS_URL needs a host, e.g. redis://127.0.0.1:6379');
  return raw;
}

/** Where attachment bytes go: a folder (`file:./dir`) or a bucket (`s3://bucket/prefix`); unset: UPLOAD_DIR. */
export type AttachmentStorage = { kind: 'file'; dir: string } | ({ kind: 's3' } & S3Location);

export function attachmentStorage(raw: string | undefined): AttachmentStorage | undefined {
  if (raw === undefined) return undefined;
  if (raw.startsWith('file:')) {
    const dir = raw.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (!dir) throw new ConfigError('ATTACHMENT_STORAGE file: needs a folder, e.g. file:./data/uploads');
    return { kind: 'file', dir: resolve(dir) };
  }
  const s3 = parseS3Url(raw);
  if (s3) return { kind: 's3', ...s3 };
  throw new ConfigError(
    `ATTACHMENT_STORAGE must be file:<folder> or s3://<bucket>[/<prefix>] (a bucket name of 3 to 63 lowercase letters, digits, dots and hyphens), got "${raw}"`,
  );
}

function corsOrigins(raw: string): string[] | '*' {
  if (raw.trim() === '') return [];
  if (raw.trim() === '*') return '*';
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(`CORS_ORIGINS must be * or a comma-separated list of origins like https://app.example.com, got "${origin}"`);
    }
  }
  return origins;
}

function routeTiers(raw: string): Record<string, Tier> {
  if (raw === '') return {};
  let routes: unknown;
  try {
    routes = JSON.parse(raw);
  } catch {
    throw new ConfigError('RATE_LIMIT_ROUTE_TIERS must be a JSON object like {"GET /api/v1/me":"low"}');
  }
  if (typeof routes !== 'object' || routes === null || Array.isArray(routes)) {
    throw new ConfigError('RATE_LIMIT_ROUTE_TIERS must be a JSON object');
  }
  for (const [route, tier] of Object.entries(routes)) {
    if (!/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/.test(route)) {
      throw new ConfigError(`RATE_LIMIT_ROUTE_TIERS key "${route}" must be "METHOD /path/template"`);
    }
    if (!TIERS.includes(tier as Tier)) {
      throw new ConfigError(`RATE_LIMIT_ROUTE_TIERS["${route}"] must be one of ${TIERS.join(', ')}`);
    }
  }
  return routes as Record<string, Tier>;
}

/** One line of a group mapping: members of `group` get `role` in `company` (an id or a name) and join its `teams` (ids or names). */
export interface GroupRuleSetting {
  group: string;
  company: string;
  role: 'owner' | 'admin' | 'member';
  teams: string[];
}

const ROLES = ['owner', 'admin', 'member'];

/** A group mapping (LDAP_GROUP_MAP, OIDC_GROUP_MAP): a JSON array of rules; empty: none, and sign-in changes no membership. */
function groupMap(name: string): Variable<GroupRuleSetting[]> {
  return variable(name, Type.String({ default: '' }), (raw) => {
    if (raw.trim() === '') return [];
    const example = `[{"group":"cn=designers,ou=groups,dc=example,dc=com","company":"Acme","role":"member","teams":["Design"]}]`;
    let rules: unknown;
    try {
      rules = JSON.parse(raw);
    } catch {
      throw new ConfigError(`${name} must be a JSON array like ${example}`);
    }
    if (!Array.isArray(rules)) throw new ConfigError(`${name} must be a JSON array like ${example}`);
    return rules.map((rule: unknown, index) => {
      const where = `${name}[${index}]`;
      const text = (value: unknown) => typeof value === 'string' && value.trim() !== '';
      if (typeof rule !== 'object' || rule === null) throw new ConfigError(`${where} must be an object like ${example.slice(1, -1)}`);
      const { group, company, role = 'member', teams = [], ...rest } = rule as Record<string, unknown>;
      if (!text(group)) throw new ConfigError(`${where}.group must name a group (its DN or name, or a claim value)`);
      if (!text(company)) throw new ConfigError(`${where}.company must name a company (its id or exact name)`);
      if (typeof role !== 'string' || !ROLES.includes(role)) throw new ConfigError(`${where}.role must be one of ${ROLES.join(', ')}`);
      if (!Array.isArray(teams) || !teams.every(text)) throw new ConfigError(`${where}.teams must be a list of team ids or names`);
      const unknown = Object.keys(rest);
      if (unknown.length) throw new ConfigError(`${where} has an unknown field "${unknown[0]}" (group, company, role, teams)`);
      return {
        group: (group as string).trim(),
        company: (company as string).trim(),
        role: role as GroupRuleSetting['role'],
        teams: (teams as string[]).map((team) => team.trim()),
      };
    });
  });
}

/** The variable that sizes a tier: `RATE_LIMIT_SECURE` ... `RATE_LIMIT_VERY_LOW`. */
export function tierEnvName(tier: Tier): string {
  return `RATE_LIMIT_${tier.toUpperCase().replace('-', '_')}`;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const PRINTABLE = '^[\\x21-\\x7e]';

/**
 * A URL of one of `protocols`, without its trailing slash (links are built by appending paths).
 * `secret`: it may hold credentials (`smtp://user:password@host`), so a message never repeats it.
 */
function optionalUrl(name: string, protocols: RegExp, example: string, options: { secret?: true } = {}): Variable<string | undefined> {
  const url = variable(name, Type.Optional(Type.String()), (raw) => {
    if (raw === undefined) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = new URL(raw.trim());
    } catch {}
    if (!parsed || !protocols.test(parsed.protocol)) throw new ConfigError(`${name} must be a URL like ${example}${options.secret ? '' : `, got "${raw}"`}`);
    return raw.trim().replace(/\/$/, '');
  });
  return options.secret ? { ...url, secret: true } : url;
}

const DAY_MS = 86_400_000;

function days(name: string, fallback: number): Variable<number> {
  return variable(name, Type.Integer({ minimum: 1, maximum: 3650, default: fallback }), (count) => count * DAY_MS, 'whole');
}

/**
 * Every setting: the shape the code reads (`AppConfig`), each leaf the one variable it comes from.
 * A new setting is one line here. An empty variable counts as unset.
 */
const SETTINGS = {
  host: text('HOST', '0.0.0.0'),
  port: whole('PORT', 3000, 0, 65535),
  databaseUrl: variable('DATABASE_URL', Type.String({ default: DEFAULT_DATABASE_URL }), databaseUrl),
  /** Bounds on every wait on the database, and the PostgreSQL pool's size. */
  database: {
    /** Opening a connection, and waiting for a free one in the pool. */
    connectTimeoutMs: whole('DB_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectTimeoutMs, 100, 600_000),
    statementTimeoutMs: whole('DB_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs, 100, 3_600_000),
    idleInTransactionTimeoutMs: whole('DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.idleInTransactionTimeoutMs, 100, 3_600_000),
    poolSize: whole('DB_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
  },
  redisUrl: variable('REDIS_URL', Type.Optional(Type.String()), redisUrl),
  /** Prefix of every Redis key the service writes, so deployments can share one Redis. */
  redisKeyPrefix: text('REDIS_KEY_PREFIX', DEFAULT_REDIS_KEY_PREFIX, {
    pattern: `${PRINTABLE}{1,100}$`,
    description: '1 to 100 printable characters without spaces',
  }),
  uploadDir: variable('UPLOAD_DIR', Type.String({ default: './data/uploads' }), (dir) => resolve(dir)),
  /** The attachment store (docs/operations.md, "Scaling out"): chosen once at start. */
  attachments: {
    /** Unset: a folder at UPLOAD_DIR (`uploadDir`); a `file:` folder also sets `uploadDir`. */
    storage: variable('ATTACHMENT_STORAGE', Type.Optional(Type.String()), attachmentStorage),
    /** `stream`: downloads through the server; `redirect`: a 302 to a presigned URL of the bucket (s3 only). */
    download: text('ATTACHMENT_DOWNLOAD', 'stream', { pattern: '^(stream|redirect)$', description: 'stream or redirect' }) as Variable<'stream' | 'redirect'>,
    /** How long a presigned download URL stays valid (at most 5 minutes). */
    redirectSeconds: whole('ATTACHMENT_REDIRECT_SECONDS', 300, 1, 300),
    /** Bound on connecting to the store and on each wait for its answer. */
    timeoutMs: whole('ATTACHMENT_STORE_TIMEOUT_MS', 10_000, 100, 600_000),
    s3: {
      /** An S3-compatible server's URL (MinIO, Ceph, R2...); unset: AWS's for the region. */
      endpoint: optionalUrl('S3_ENDPOINT', /^https?:$/, 'https://minio.internal:9000'),
      region: variable('S3_REGION', Type.Optional(Type.String({ pattern: '^[a-z0-9-]{1,40}$', description: 'a region name like eu-west-1' }))),
      /** `bucket` in the path instead of the host name (most S3-compatible servers want it). */
      forcePathStyle: flag('S3_FORCE_PATH_STYLE', false),
    },
  },
  /** Largest accepted attachment, bytes. */
  maxUploadBytes: whole('MAX_UPLOAD_BYTES', 25 * 1024 * 1024, 1, 2 ** 40),
  /** Board imports (POST /api/v1/imports/…): the largest file accepted, bytes. */
  imports: {
    maxFileBytes: whole('IMPORT_MAX_BYTES', 50 * 1024 * 1024, 1, 2 ** 32),
    /** How long a running import's lease lasts past each batch: past it without renewal, its process is taken for dead. */
    leaseMs: whole('IMPORT_LEASE_MS', 120_000, 1000, 3_600_000),
  },
  /** Largest accepted JSON body, bytes. */
  bodyLimitBytes: whole('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 2 ** 30),
  logLevel: text('LOG_LEVEL', 'info', { pattern: `^(${LOG_LEVELS.join('|')})$`, description: `one of ${LOG_LEVELS.join(', ')}` }),
  trustProxy: flag('TRUST_PROXY', false),
  /** Bounds on what one client can hold open. */
  http: {
    /** Whole request, headers and body, from the first byte (0: none). */
    requestTimeoutMs: whole('REQUEST_TIMEOUT_MS', 30_000, 0, 3_600_000),
    /** Request headers, from the first byte. */
    headersTimeoutMs: whole('HEADERS_TIMEOUT_MS', 10_000, 1, 3_600_000),
    /** An idle keep-alive connection between requests. */
    keepAliveTimeoutMs: whole('KEEP_ALIVE_TIMEOUT_MS', 5_000, 1, 3_600_000),
    /** Requests on one connection before the server closes it (0: no limit). */
    maxRequestsPerSocket: whole('MAX_REQUESTS_PER_SOCKET', 0, 0, 1_000_000_000),
    /** On SIGINT/SIGTERM, how long in-flight requests may finish before their connections are cut. */
    shutdownTimeoutMs: whole('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 3_600_000),
  },
  /** Live streams of a board's events (GET /api/v1/boards/:boardId/events). */
  stream: {
    /** Between heartbeats (an SSE comment), and between checks of the caller's reach. */
    heartbeatMs: whole('STREAM_HEARTBEAT_MS', 15_000, 10, 3_600_000),
    /** Between refreshes of a viewer's presence on a board; one counts no more three refreshes after its last. */
    presenceRefreshMs: whole('STREAM_PRESENCE_REFRESH_MS', 5_000, 10, 600_000),
    /** Bytes a stream may hold for a client that does not read, before it is dropped. */
    bufferBytes: whole('STREAM_BUFFER_BYTES', 1024 * 1024, 1024, 2 ** 30),
  },
  /** `/metrics`: off unless a token or a port of its own is configured. */
  metrics: {
    /** Bearer token `/metrics` on the main port requires. */
    token: optionalSecret('METRICS_TOKEN', `${PRINTABLE}{16,200}$`, '16 to 200 printable characters without spaces'),
    /** A port of its own for `/metrics` (bound to `host`), needing no token. */
    port: optionalWhole('METRICS_PORT', 1, 65535),
    host: text('METRICS_HOST', '127.0.0.1'),
  },
  cors: {
    /** Origins allowed to call the API from a browser: a list, `*` for any, or none. */
    origins: variable('CORS_ORIGINS', Type.String({ default: '' }), corsOrigins),
    /** How long a browser may cache a preflight answer. */
    maxAgeSeconds: whole('CORS_MAX_AGE_SECONDS', 600, 0, 86_400),
  },
  /** Webhook deliveries (src/domain/webhooks): see docs/events.md, Webhooks. */
  webhooks: {
    /** Deliver to loopback, private, link-local and metadata addresses too (tests, closed networks). */
    allowPrivateNetworks: flag('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    /** Bound on one delivery attempt, connect to response headers and body. */
    timeoutMs: whole('WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000),
    /** How often the dispatcher looks at the event feed without being told of a commit (other instances' changes). */
    pollMs: whole('WEBHOOK_POLL_MS', 500, 10, 60_000),
  },
  /** The sweeper of deleted lists and boards: how often it looks, and how many cards one transaction removes. */
  sweep: {
    intervalMs: whole('SWEEP_INTERVAL_MS', 60_000, 100, 86_400_000),
    batchCards: whole('SWEEP_BATCH_CARDS', 200, 1, 10_000),
  },
  /** The reminder scheduler: a pass every `intervalMs` (0: none in this process). */
  reminders: { intervalMs: whole('REMINDER_INTERVAL_MS', 15_000, 0, 3_600_000) },
  /** Board rules (src/domain/rules): see docs/api.md, Rules. */
  rules: {
    /** How often the rule worker looks without being woken by a commit (0: no worker in this process). */
    pollMs: whole('RULES_POLL_MS', 1000, 0, 3_600_000),
    /** Actions the rules of one board may take in one clock hour; runs past it are skipped. */
    actionsPerHour: whole('RULES_ACTIONS_PER_HOUR', 1000, 1, 10_000_000),
  },
  /** Recurring cards (src/domain/recurrences): how often the maker looks for occurrences owed (0: none in this process). */
  recurrences: { pollMs: whole('RECURRENCES_POLL_MS', 10_000, 0, 3_600_000) },
  /** Delivery to a NotificationSender (src/domain/notifications/sender.ts). */
  notifications: {
    /** Bound on one `send`: past it the send is abandoned (its signal aborted), logged and counted. */
    sendTimeoutMs: whole('NOTIFICATION_SEND_TIMEOUT_MS', 10_000, 10, 600_000),
  },
  /** The event record (docs/events.md). */
  events: {
    /** Events older than this many days are pruned (the purge command, and the server's schedule). */
    retentionDays: whole('EVENT_RETENTION_DAYS', DEFAULT_EVENT_RETENTION_DAYS, 1, 36_500),
    /** How often the server prunes (0: never; the purge command still does). */
    pruneIntervalMs: variable(
      'EVENT_PRUNE_INTERVAL_SECONDS',
      Type.Integer({ minimum: 0, maximum: 7 * 86_400, default: 3600 }),
      (seconds) => seconds * 1000,
      'whole',
    ),
  },
  /** The audit log (docs/people.md, "Audit log"). */
  audit: {
    /** Entries older than this many days are pruned, on the event record's schedule (EVENT_PRUNE_INTERVAL_SECONDS). */
    retentionDays: whole('AUDIT_RETENTION_DAYS', 365, 1, 36_500),
  },
  /** People sign in (docs/people.md): sessions, sign-in throttling, mail, single sign-on. */
  people: {
    /** The address people open the app at (links in mails and in the setup line); default: from each request. */
    publicUrl: optionalUrl('PUBLIC_URL', /^https?:$/, 'https://tasks.example.com'),
    /** A session ends after this long unused, and this long after sign-in whatever its use. */
    sessionIdleMs: days('SESSION_IDLE_DAYS', 14),
    sessionAbsoluteMs: days('SESSION_ABSOLUTE_DAYS', 90),
    /** A session's requests are limited per user at the contract's tier sizes times this. */
    sessionRateLimitFactor: whole('SESSION_RATE_LIMIT_FACTOR', 10, 1, 10_000),
    /** Failed sign-ins admitted per email and per client address within the window. */
    signInFailures: {
      perEmail: whole('SIGN_IN_FAILURES_PER_EMAIL', 10, 1, 1_000_000),
      perAddress: whole('SIGN_IN_FAILURES_PER_ADDRESS', 50, 1, 1_000_000),
      windowSeconds: whole('SIGN_IN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
    },
    /** Outgoing mail; no URL: no mail (links are shown to the admin instead). */
    mail: {
      smtpUrl: optionalUrl('SMTP_URL', /^smtps?:$/, 'smtp://host:587', { secret: true }),
      from: text('MAIL_FROM', 'Taskboard <taskboard@localhost>'),
      timeoutMs: whole('MAIL_TIMEOUT_MS', 10_000, 100, 600_000),
      pollMs: whole('MAIL_POLL_MS', 5_000, 10, 600_000),
    },
    /** Second factors (docs/people.md, "Second factor"). */
    secondFactor: {
      /**
       * 32 bytes (64 hex digits, or 43 base64url characters) that seal authenticator secrets at rest.
       * Unset: a key kept in the database seals them (a copy of the database then holds both).
       */
      key: optionalSecret('SECOND_FACTOR_KEY', '^([0-9a-fA-F]{64}|[A-Za-z0-9_-]{43}=?)$', '64 hex digits or 43 base64url characters (32 bytes)'),
      /** The issuer authenticator apps show next to the account. */
      issuer: text('TOTP_ISSUER', 'Taskboard'),
      /** The WebAuthn relying party of passkeys: the site's domain; default: PUBLIC_URL's host, else the request's. */
      passkeyRpId: variable('WEBAUTHN_RP_ID', Type.Optional(Type.String({ pattern: '^[A-Za-z0-9.-]{1,253}$' }))),
      /** The origins passkeys are accepted from (comma-separated); default: PUBLIC_URL's origin, else the request's. */
      passkeyOrigins: variable('WEBAUTHN_ORIGINS', Type.String({ default: '' }), (raw) =>
        raw
          .split(',')
          .map((origin) => origin.trim().replace(/\/$/, ''))
          .filter(Boolean),
      ),
    },
    /** LDAP or Active Directory sign-in: on when the URL is set (docs/people.md, "LDAP"). */
    ldap: {
      url: optionalUrl('LDAP_URL', /^ldaps?:$/, 'ldaps://ldap.example.com:636'),
      bindDn: variable('LDAP_BIND_DN', Type.Optional(Type.String())),
      bindPassword: optionalSecret('LDAP_BIND_PASSWORD', `${PRINTABLE}{1,500}$`, '1 to 500 printable characters without spaces'),
      searchBase: text('LDAP_SEARCH_BASE', ''),
      searchFilter: text('LDAP_SEARCH_FILTER', '(mail={email})'),
      startTls: flag('LDAP_START_TLS', false),
      timeoutMs: whole('LDAP_TIMEOUT_MS', 5_000, 100, 60_000),
      /** Where groups are searched by their members (unset: only the person's `memberOf`). */
      groupSearchBase: variable('LDAP_GROUP_SEARCH_BASE', Type.Optional(Type.String()), (raw): string | undefined => raw),
      /** `{dn}` stands for the person's escaped DN. */
      groupFilter: text('LDAP_GROUP_FILTER', '(|(member={dn})(uniqueMember={dn}))'),
      /** Directory groups to company roles and teams, applied at each directory sign-in (docs/people.md). */
      groupMap: groupMap('LDAP_GROUP_MAP'),
    },
    /** OpenID Connect sign-in: on when the issuer is set (it then needs the client and the redirect). */
    oidc: {
      issuer: optionalUrl('OIDC_ISSUER', /^https?:$/, 'https://id.example.com'),
      clientId: variable('OIDC_CLIENT_ID', Type.Optional(Type.String())),
      clientSecret: optionalSecret('OIDC_CLIENT_SECRET', `${PRINTABLE}{1,500}$`, '1 to 500 printable characters without spaces'),
      redirectUrl: optionalUrl('OIDC_REDIRECT_URL', /^https?:$/, 'https://tasks.example.com/api/v1/auth/oidc/callback'),
      allowSignUp: flag('OIDC_ALLOW_SIGN_UP', false),
      /** The bound of each request to the provider (discovery, token, userinfo): a provider down is an error, never a hang. */
      timeoutMs: whole('OIDC_TIMEOUT_MS', 5_000, 100, 60_000),
      /** The scopes asked of the provider; some send groups only for a scope of their own (`groups`). */
      scopes: text('OIDC_SCOPES', 'openid email profile'),
      /** The claim that lists the person's groups (or roles). */
      groupsClaim: text('OIDC_GROUPS_CLAIM', 'groups'),
      /** The claim's values to company roles and teams, applied at each single sign-on (docs/people.md). */
      groupMap: groupMap('OIDC_GROUP_MAP'),
    },
  },
  rateLimit: {
    enabled: flag('RATE_LIMIT_ENABLED', true),
    windowSeconds: whole('RATE_LIMIT_WINDOW_SECONDS', 3600, 1, 31 * 24 * 3600),
    tiers: Object.fromEntries(TIERS.map((tier) => [tier, whole(tierEnvName(tier), DEFAULT_TIER_LIMITS[tier], 1, 1_000_000)])) as Record<Tier, Variable<number>>,
    /** `METHOD /path/template` → tier, replacing a route's own tier. */
    routeTiers: variable('RATE_LIMIT_ROUTE_TIERS', Type.String({ default: '' }), routeTiers),
  },
};

type Settings<T> = T extends Variable<infer V> ? V : { -readonly [K in keyof T]: Settings<T[K]> };

/** The configuration, in the shape the code reads it (see SETTINGS for each variable and its default). */
export type AppConfig = Settings<typeof SETTINGS>;

function isVariable(node: unknown): node is Variable<unknown> {
  return typeof node === 'object' && node !== null && 'variable' in node;
}

function variablesOf(node: object): Variable<unknown>[] {
  return Object.values(node).flatMap((child) => (isVariable(child) ? [child] : variablesOf(child as object)));
}

const VARIABLES = variablesOf(SETTINGS);
const ENV_SCHEMA = Type.Object(Object.fromEntries(VARIABLES.map((v) => [v.variable, v.schema])));
const FLAG_WORDS: Record<string, boolean> = { 1: true, true: true, yes: true, on: true, 0: false, false: false, no: false, off: false };

type Env = Record<string, string | undefined>;

/** The variables as env-schema takes them: unset when empty, whole numbers checked as written, flags in their words. */
function prepared(env: Env): Record<string, string | boolean> {
  const data: Record<string, string | boolean> = {};
  for (const { variable: name, kind } of VARIABLES) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    if (kind === 'whole' && !/^\s*\d+\s*$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
    if (kind === 'flag') {
      const word = FLAG_WORDS[raw.trim().toLowerCase()];
      if (word === undefined) throw new ConfigError(`${name} must be true or false, got "${raw}"`);
      data[name] = word;
    } else data[name] = kind === 'whole' ? raw.trim() : raw;
  }
  return data;
}

/** env-schema's first complaint as one line naming the variable. */
function complaint(error: unknown, data: Record<string, unknown>): ConfigError {
  const [first] = (error as { errors?: { instancePath: string; keyword: string; message?: string; params: Record<string, unknown> }[] }).errors ?? [];
  if (!first) return new ConfigError((error as Error).message);
  const name = first.instancePath.replace(/^\//, '') || String(first.params.missingProperty ?? 'configuration');
  const found = VARIABLES.find((v) => v.variable === name);
  const schema = found?.schema as { minimum?: number; maximum?: number; description?: string } | undefined;
  const got = found?.secret ? '' : `, got ${JSON.stringify(data[name])}`;
  if (first.keyword === 'minimum' || first.keyword === 'maximum')
    return new ConfigError(`${name} must be between ${schema?.minimum} and ${schema?.maximum}${got.replaceAll('"', '')}`);
  return new ConfigError(`${name} must be ${schema?.description ?? first.message?.replace(/^must be /, '')}${got}`);
}

function build(node: object, values: Record<string, unknown>, options: ReadOptions): unknown {
  return Object.fromEntries(
    Object.entries(node).map(([key, child]) => [
      key,
      isVariable(child) ? child.read(values[child.variable], options) : build(child as object, values, options),
    ]),
  );
}

/** Reads and validates the configuration; throws ConfigError with a message a person can act on. */
export function loadConfig(env: Env = process.env, options: { createDatabase?: boolean } = {}): AppConfig {
  const data = prepared(env);
  let values: Record<string, unknown>;
  try {
    values = envSchema({ schema: ENV_SCHEMA, data: { ...data }, env: false });
  } catch (error) {
    throw complaint(error, data);
  }
  const config = build(SETTINGS, values, { createDatabase: options.createDatabase ?? false }) as AppConfig;
  // Node refuses a header bound longer than the whole request's.
  const { http } = config;
  if (http.requestTimeoutMs > 0 && http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${http.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`);
  }
  const storage = config.attachments.storage;
  if (storage?.kind === 'file') config.uploadDir = storage.dir;
  if (config.attachments.download === 'redirect' && storage?.kind !== 's3') {
    throw new ConfigError('ATTACHMENT_DOWNLOAD=redirect needs an s3:// ATTACHMENT_STORAGE (a folder has no presigned URLs)');
  }
  const { oidc } = config.people;
  if (oidc.issuer && (!oidc.clientId || !oidc.redirectUrl)) throw new ConfigError('OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_REDIRECT_URL too');
  return config;
}

/** A route's tier: the configured override for its `METHOD /path/template`, else the route's own. */
export function tierOfRoute(rateLimit: AppConfig['rateLimit'], route: string, own: Tier | undefined): Tier | undefined {
  return rateLimit.routeTiers[route] ?? own;
}
