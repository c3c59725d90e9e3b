import { catalogue, icu } from '../i18n/messages.ts';

/** The date picker's and the time zone setting's words (loaded with them, a namespace of its own in the catalogues). */
export const dateText = catalogue('dates', {
  quickPicks: 'Quick picks',
  today: 'Today',
  tomorrow: 'Tomorrow',
  nextWeek: 'Next week',
  noDate: 'No date',
  timeZone: 'Time zone',
  browserZone: icu('This browser’s ({zone})', (zone: string) => ({ zone })),
  timeZoneHint: 'Dates and times show, and are picked, in this time zone.',
  timeZoneNow: icu('It is {time} there now.', (time: string) => ({ time })),
});
