import { catalogue, icu } from '../i18n/messages.ts';

/** The words of the account page's API keys beyond their name: what a key may do, its teams, its expiry, its last use. */
export const keyText = catalogue('keys', {
  newKey: 'New key',
  access: 'What the key may do',
  readWrite: 'Read and change',
  readOnly: 'Read only',
  readOnlyHint: 'A read-only key is refused every change.',
  teams: 'Teams',
  teamsHint: 'Check some teams to limit the key to them; with none checked it reaches every team you reach.',
  expiry: 'Expires after (optional)',
  expiryHint: 'The key stops working at the end of this day, in your time zone. Leave it empty for a key that does not expire.',
  scopeReadWrite: 'read and change',
  scopeReadOnly: 'read only',
  everyTeam: 'every team',
  someTeams: icu('teams: {teams}', (teams: string) => ({ teams })),
  unknownTeam: 'a team you are no longer in',
  expires: icu('expires {when}', (when: string) => ({ when })),
  expired: icu('expired {when}', (when: string) => ({ when })),
  neverExpires: 'does not expire',
  lastUsed: icu('last used {when} from {address}', (when: string, address: string) => ({ when, address })),
  neverUsed: 'never used',
  created: icu('starts with {prefix}…, created {created}', (prefix: string, created: string) => ({ prefix, created })),
  expiredBadge: 'Expired',
});
