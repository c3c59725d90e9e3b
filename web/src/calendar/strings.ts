import { catalogue, icu } from '../i18n/messages.ts';

/** The calendar feeds' words (the account page's section; a namespace of its own in the catalogues). */
export const calendarText = catalogue('calendar', {
  title: 'Calendar feeds',
  intro:
    'Subscribe to your due dates from Google Calendar, Outlook or Apple Calendar. Anyone with a feed’s link can read it: revoke a link you shared by mistake.',
  of: 'Show',
  myTasks: 'My Tasks: the cards I am a member of',
  board: icu('The board {board}', (board: string) => ({ board })),
  create: 'Create a calendar link',
  fresh: 'Your calendar link',
  freshHint: 'Copy it now and paste it into your calendar app (“Subscribe to calendar” or “From URL”): it is not shown again.',
  copied: 'Link copied.',
  copyFailed: 'Could not copy: select the link and copy it.',
  none: 'No calendar links yet.',
  feedMyTasks: 'My Tasks',
  feedBoard: icu('Board {board}', (board: string) => ({ board })),
  feedGone: 'A board that no longer exists',
  details: icu('{prefix}… · created {created}{used, select, none {} other { · last read {used}}}', (prefix: string, created: string, used: string | null) => ({
    prefix,
    created,
    used: used ?? 'none',
  })),
  revoke: 'Revoke',
  revokeNamed: icu('Revoke the calendar link of {what}', (what: string) => ({ what })),
  confirmRevoke: icu('Revoke the calendar link of {what}? Calendars subscribed to it stop updating.', (what: string) => ({ what })),
  revoked: icu('The calendar link of {what} is revoked.', (what: string) => ({ what })),
});
