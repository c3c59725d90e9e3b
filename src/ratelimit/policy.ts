import type { AppConfig } from '../config.ts';
import type { RateLimitDecision, RateLimitRequest } from './limiter.ts';
import { toSeconds } from './sliding-log.ts';

/** What every limiter needs from the configuration: the window and the size of each tier. */
export type RateLimitSettings = Pick<AppConfig['rateLimit'], 'windowSeconds' | 'tiers'>;

/** Where limiters report incidents (Fastify's logger fits). */
export interface LimiterLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** A bucket's name in every store: `<apiKeyId> <METHOD> <route template>`. */
export function bucketOf(request: RateLimitRequest): string {
  return `${request.apiKeyId} ${request.route}`;
}

export function limitOf(settings: RateLimitSettings, request: RateLimitRequest): number {
  return request.limit ?? settings.tiers[request.tier];
}

export function decisionOf(
  settings: RateLimitSettings,
  request: RateLimitRequest,
  outcome: { allowed: boolean; remaining: number; resetMs: number },
): RateLimitDecision {
  return {
    allowed: outcome.allowed,
    tier: request.tier,
    limit: limitOf(settings, request),
    windowSeconds: settings.windowSeconds,
    remaining: outcome.remaining,
    resetSeconds: toSeconds(outcome.resetMs),
  };
}
