/**
 * Sign-in against an LDAP or Active Directory server (docs/people.md, "LDAP"), through ldapts: the
 * service account binds and searches the email with the configured filter, then the person's own
 * entry binds with the password given. Every wait on the server is bounded; a server down refuses
 * the sign-in (it never lets one through). Nothing of the directory is stored but the person.
 */
import type { Client } from 'ldapts';
import type { GroupRule } from '../companies/group-mapping.ts';

export interface DirectorySettings {
  url: string;
  bindDn: string | undefined;
  bindPassword: string | undefined;
  searchBase: string;
  /** `{email}` stands for the escaped email: `(mail={email})`, `(userPrincipalName={email})`. */
  searchFilter: string;
  startTls: boolean;
  timeoutMs: number;
  /** Where groups naming the person as a member are searched; unset: the entry's `memberOf` alone. */
  groupSearchBase?: string | undefined;
  /** `{dn}` stands for the person's escaped DN: `(member={dn})`. */
  groupFilter?: string | undefined;
}

export interface DirectoryPerson {
  email: string;
  fullName: string;
  /** The DNs of the person's groups: the entry's `memberOf` (Active Directory, OpenLDAP's memberof overlay) and those found by the group search. */
  groups: string[];
}

/** Why the directory did not vouch for the person (the audit log's reason). */
export type DirectoryRefusal = 'ldap_unknown' | 'ldap_wrong_password' | 'ldap_disabled' | 'ldap_unavailable';

/** RFC 4515: the characters a filter value must escape. */
export function escapeFilterValue(value: string): string {
  const special = new Set(['\\', '*', '(', ')', String.fromCharCode(0)]);
  return [...value].map((c) => (special.has(c) ? `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join('');
}

const all = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((one) =>
    typeof one === 'string' ? [one] : Buffer.isBuffer(one) ? [one.toString('utf8')] : [],
  );

const first = (value: unknown): string | undefined => {
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' ? one : Buffer.isBuffer(one) ? one.toString('utf8') : undefined;
};

/** Active Directory's "account disabled" bit of userAccountControl. */
const AD_DISABLED = 0x2;

export class Directory {
  readonly #settings: DirectorySettings;
  /** The groups' roles and teams, applied at each sign-in the directory vouches for (none: memberships are left alone). */
  readonly groupRules: readonly GroupRule[];
  constructor(settings: DirectorySettings, groupRules: readonly GroupRule[] = []) {
    this.#settings = settings;
    this.groupRules = groupRules;
  }

  async #client(): Promise<Client> {
    const { url, timeoutMs } = this.#settings;
    // loaded on first use (docs/decisions/0042): a server without a directory never holds it
    const { Client } = await import('ldapts');
    return new Client({ url, timeout: timeoutMs, connectTimeout: timeoutMs });
  }

  /** The person the directory knows by `email` and `password`, or why not. */
  async check(email: string, password: string): Promise<DirectoryPerson | DirectoryRefusal> {
    if (!password) return 'ldap_wrong_password';
    const settings = this.#settings;
    const service = await this.#client();
    let entry: Record<string, unknown> & { dn: string };
    const groups: string[] = [];
    try {
      if (settings.startTls) await service.startTLS();
      if (settings.bindDn) await service.bind(settings.bindDn, settings.bindPassword ?? '');
      const { searchEntries } = await service.search(settings.searchBase, {
        scope: 'sub',
        filter: settings.searchFilter.replaceAll('{email}', escapeFilterValue(email)),
        attributes: ['dn', 'mail', 'cn', 'displayName', 'userAccountControl', 'pwdAccountLockedTime', 'nsAccountLock', 'memberOf'],
        sizeLimit: 2,
        timeLimit: Math.ceil(settings.timeoutMs / 1000),
      });
      if (searchEntries.length !== 1) return 'ldap_unknown';
      entry = searchEntries[0] as typeof entry;
      groups.push(...all(entry.memberOf));
      if (settings.groupSearchBase) {
        const found = await service.search(settings.groupSearchBase, {
          scope: 'sub',
          filter: (settings.groupFilter ?? '(member={dn})').replaceAll('{dn}', escapeFilterValue(entry.dn)),
          attributes: ['dn'],
          timeLimit: Math.ceil(settings.timeoutMs / 1000),
        });
        groups.push(...found.searchEntries.map((group) => group.dn));
      }
    } catch {
      return 'ldap_unavailable';
    } finally {
      await service.unbind().catch(() => {});
    }
    const control = Number(first(entry.userAccountControl) ?? 0);
    if (control & AD_DISABLED || first(entry.pwdAccountLockedTime) || first(entry.nsAccountLock)?.toLowerCase() === 'true') return 'ldap_disabled';

    const own = await this.#client();
    try {
      if (settings.startTls) await own.startTLS();
      await own.bind(entry.dn, password);
    } catch (error) {
      // 49: invalid credentials; anything else is the server's trouble, not the person's
      return (error as { code?: number }).code === 49 ? 'ldap_wrong_password' : 'ldap_unavailable';
    } finally {
      await own.unbind().catch(() => {});
    }
    return {
      email: (first(entry.mail) ?? email).toLowerCase(),
      fullName: first(entry.displayName) ?? first(entry.cn) ?? email.split('@')[0]!,
      groups: [...new Set(groups)],
    };
  }
}
