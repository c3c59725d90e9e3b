/**
 * A checklist holds at most this many items (as Trello's), so a checklist record, which embeds its
 * items, stays a bounded answer.
 */
export const MAX_ITEMS_PER_CHECKLIST = 200;
