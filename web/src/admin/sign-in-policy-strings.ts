import { catalogue } from '../i18n/messages.ts';

/** The words of a company's sign-in policy on its administration page (owners). */
export const signInPolicyText = catalogue('signInPolicy', {
  title: 'Single sign-on',
  only: 'Members sign in with single sign-on only',
  onlyHint:
    "Members then sign in through your organisation's directory or identity provider: their passwords here, password resets and passkeys alone are refused. Owners keep their passwords, to get in when the provider is down.",
  unavailable: 'This server has no single sign-on set up (LDAP or OpenID Connect): ask its administrator.',
  turnedOn: 'Members now sign in with single sign-on only.',
  turnedOff: 'Members may sign in with a password again.',
});
