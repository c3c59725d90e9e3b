import { catalogue, icu } from '../i18n/messages.ts';

/** The left rail's words (loaded with it, a namespace of its own in the catalogues). */
export const railText = catalogue('rail', {
  collapse: 'Collapse the sidebar',
  expand: 'Expand the sidebar',
  starred: 'Starred boards',
  recent: 'Recent boards',
  noBoards: 'No boards yet',
  star: icu('Star {board}', (board: string) => ({ board })),
  teamOf: icu('{team} ({company})', (team: string, company: string) => ({ team, company })),
});
