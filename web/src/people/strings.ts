import { catalogue, icu } from '../i18n/messages.ts';

/** The words of the pages a link or the sign-in page leads to: invitations, password resets, first run. */
export const peopleText = catalogue('people', {
  passwordRules: 'At least 12 characters, and not one of the most common passwords. A few unrelated words make a good one.',
  showPassword: 'Show password',
  forgotPassword: 'Forgot password?',
  invitationSingleSignOnOnly:
    "This company signs its members in through your organisation's sign-in only: use single sign-on, or sign in with your directory password, then open this invitation again.",
  singleSignOnOnly:
    "Your company signs you in only through your organisation's sign-in: single sign-on, or your directory password. A password of this server is refused.",
  forgotTitle: 'Reset your password',
  forgotIntro: 'Give the email you sign in with. We will mail you a link to choose a new password.',
  forgotNoMail: 'This server sends no mail. Ask an owner or administrator of your company for a reset link: they make one under Administration, Members.',
  sendResetLink: 'Send reset link',
  resetMailed: icu(
    'If {email} has an account here, a mail with a reset link is on its way. The link works for one hour; check your spam folder if it does not arrive.',
    (email: string) => ({ email }),
  ),
  backToSignIn: 'Back to sign in',
  resetTitle: 'Choose a new password',
  resetFor: icu('For {email}. Your other sessions end when you save it.', (email: string) => ({ email })),
  resetSubmit: 'Save password and sign in',
  resetGone: {
    used: 'This reset link has been used already.',
    expired: 'This reset link has expired: a link works for one hour.',
  } as Record<string, string>,
  resetInvalid: 'This reset link is not complete. Open it again from the mail, or ask for a new one.',
  askNewReset: 'Ask for a new link',
  checking: 'Checking the link…',
  invitationTitle: icu('Join {company} on Taskboard', (company: string) => ({ company })),
  invitedBy: icu(
    '{hasInviter, select, yes {{inviter} invited you to join {company} as {role}.} other {You are invited to join {company} as {role}.}}',
    (inviter: string | null, company: string, role: string) => ({ inviter: inviter ?? '', hasInviter: inviter ? 'yes' : 'no', company, role }),
  ),
  roles: { owner: 'an owner', admin: 'an administrator', member: 'a member' } as Record<string, string>,
  invitedEmail: icu('The invitation is for {email}.', (email: string) => ({ email })),
  youWillJoin: 'You will join',
  teamNamed: icu('the team {team}', (team: string) => ({ team })),
  boardNamed: icu('the board {board}', (board: string) => ({ board })),
  expiresOn: icu('The invitation is valid until {when}.', (when: string) => ({ when })),
  newAccountIntro: 'Create your account to accept.',
  join: icu('Join {company}', (company: string) => ({ company })),
  joinAs: icu('Join {company} as {name}', (company: string, name: string) => ({ company, name })),
  signedInAs: icu('You are signed in as {name} ({email}).', (name: string, email: string) => ({ name, email })),
  otherAccount: icu(
    'You are signed in as {signedIn}, but this invitation is for {invited}. Sign out to accept it with that address.',
    (signedIn: string, invited: string) => ({ signedIn, invited }),
  ),
  signOutAndContinue: 'Sign out and continue',
  existingAccount: icu('{email} already has an account. Sign in to accept the invitation.', (email: string) => ({ email })),
  signInAndJoin: 'Sign in and join',
  joinWithSso: 'Join with single sign-on',
  invitationGone: {
    used: 'This invitation has been used already.',
    revoked: 'This invitation was withdrawn.',
    expired: 'This invitation has expired: an invitation is valid for 7 days.',
  } as Record<string, string>,
  askInviter: icu(
    '{hasInviter, select, yes {Ask {inviter} at {company} to invite you again.} other {Ask an administrator of {company} to invite you again.}}',
    (inviter: string | null, company: string) => ({ inviter: inviter ?? '', hasInviter: inviter ? 'yes' : 'no', company }),
  ),
  alreadyMember: 'If you joined already, sign in.',
  invitationInvalid: 'This invitation link is not complete. Open it again from the mail, or ask for the whole link.',
  goToSignIn: 'Go to sign in',
  somethingFailed: 'That did not work. Try again in a moment.',
});
