/**
 * Comments, replies and cheers of one card get strictly increasing `createdAt` in the order they
 * were made (taken under the card's row lock): a millisecond later than the newest one when the clock
 * has not moved past it. So (createdAt, id) order is creation order, and a new comment always sorts
 * after every existing one, which is what lets a cursor page neither repeat nor skip.
 */
export function nextCreatedAt(latest: string | undefined, now: string): string {
  if (latest === undefined || now > latest) return now;
  return new Date(Date.parse(latest) + 1).toISOString();
}
