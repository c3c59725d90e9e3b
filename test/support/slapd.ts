/**
 * A real OpenLDAP server for the tests (Debian's `slapd`): a configuration and a database in a
 * temporary folder, on a free port of 127.0.0.1, seeded through ldapts as its root. Its start is
 * awaited by connecting until it answers (bounded), and it is stopped by its process id.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import { freePort } from './smtp.ts';

export const SLAPD = '/usr/sbin/slapd';
export const slapdMissing = existsSync(SLAPD) ? false : 'slapd is not installed (apt-get install -y slapd)';

export const SUFFIX = 'dc=acme,dc=test';
export const ROOT_DN = `cn=admin,${SUFFIX}`;
export const ROOT_PASSWORD = 'root secret of the test directory';
export const SERVICE_DN = `cn=taskboard,ou=services,${SUFFIX}`;
export const SERVICE_PASSWORD = 'service secret of the test directory';

export interface TestDirectory {
  url: string;
  /** Adds an entry as the directory's root. */
  add(dn: string, attributes: Record<string, string | string[]>): Promise<void>;
  /** Replaces an attribute's values of an entry, as the directory's root (a group's `member`). */
  replace(dn: string, type: string, values: string[]): Promise<void>;
  stop(): Promise<void>;
}

export async function startSlapd(): Promise<TestDirectory> {
  const folder = mkdtempSync(join(tmpdir(), 'taskboard-slapd-'));
  mkdirSync(join(folder, 'db'));
  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  writeFileSync(
    join(folder, 'slapd.conf'),
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      // the password policy overlay: an account can be locked (pwdAccountLockedTime), as an administrator disables one
      'moduleload ppolicy',
      // memberOf on each person, kept by the server as groups change (as Active Directory has it)
      'moduleload memberof',
      `pidfile ${join(folder, 'slapd.pid')}`,
      'database mdb',
      'maxsize 10485760',
      `suffix "${SUFFIX}"`,
      `rootdn "${ROOT_DN}"`,
      `rootpw "${ROOT_PASSWORD}"`,
      `directory ${join(folder, 'db')}`,
      'overlay ppolicy',
      'overlay memberof',
      // people bind as themselves; the service account reads; nobody reads a password
      'access to attrs=userPassword by self =xw by anonymous auth by * none',
      `access to * by dn.exact="${SERVICE_DN}" read by self read by * none`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(SLAPD, ['-f', join(folder, 'slapd.conf'), '-h', `${url}/`, '-d', '0'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const root = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ url, timeout: 2000, connectTimeout: 2000 });
    try {
      await client.bind(ROOT_DN, ROOT_PASSWORD);
      return await work(client);
    } finally {
      await client.unbind().catch(() => {});
    }
  };
  // answering: a root bind succeeds (each try bounded; at most 10 s in all)
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await root(async () => {});
      break;
    } catch (error) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill();
        throw new Error(`slapd did not start on ${url}: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const add = (dn: string, attributes: Record<string, string | string[]>) => root((client) => client.add(dn, attributes));
  await add(SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'acme', o: 'Acme' });
  await add(`ou=people,${SUFFIX}`, { objectClass: 'organizationalUnit', ou: 'people' });
  await add(`ou=services,${SUFFIX}`, { objectClass: 'organizationalUnit', ou: 'services' });
  await add(`ou=groups,${SUFFIX}`, { objectClass: 'organizationalUnit', ou: 'groups' });
  await add(SERVICE_DN, { objectClass: ['person', 'simpleSecurityObject'], cn: 'taskboard', sn: 'service', userPassword: SERVICE_PASSWORD });
  return {
    url,
    add,
    replace: (dn, type, values) => root((client) => client.modify(dn, new Change({ operation: 'replace', modification: new Attribute({ type, values }) }))),
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
