import type { RouteOptions } from 'fastify';

/** A route's methods (`route.method` is one method or a list). */
export function methodsOf(route: RouteOptions): string[] {
  return [route.method].flat();
}

type RouteHookKind = 'preValidation' | 'preHandler' | 'preSerialization';

/**
 * Adds `hook` to the route being declared (in an `onRoute` hook), ahead of the route's own hooks of
 * that kind: for hooks that only some routes need, so the others do not run them on every request.
 */
export function prependRouteHook<K extends RouteHookKind>(route: RouteOptions, kind: K, hook: Exclude<RouteOptions[K], unknown[] | undefined>): void {
  route[kind] = [hook, ...[route[kind] ?? []].flat()] as RouteOptions[K];
}
