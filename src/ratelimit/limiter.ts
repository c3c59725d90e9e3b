/**
 * What the app asks of a rate limiter (src/plugins/rate-limit.ts asks it for every API-key request;
 * the limiters in this folder answer it).
 */
import type { Tier } from '../config.ts';

/** One request as the limiter sees it: whose bucket, which route template, which tier. */
export interface RateLimitRequest {
  /** The key's id, or `user:<userId>` for a signed-in person's session requests (docs/people.md). */
  apiKeyId: string;
  /** `METHOD /path/template`, e.g. `PATCH /api/v1/cards/:cardId/attachments/:attachmentId`. */
  route: string;
  tier: Tier;
  /** The bucket's size when not the tier's (session requests: the tier's times SESSION_RATE_LIMIT_FACTOR). */
  limit?: number | undefined;
}

export interface RateLimitDecision {
  allowed: boolean;
  tier: Tier;
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** Seconds until the bucket admits one more request. */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Decides and, when admitted, counts the request, in one atomic step. */
  consume(request: RateLimitRequest): Promise<RateLimitDecision>;
  close(): Promise<void>;
  /** A round trip to the limiter's own store, where it has one apart from the database (Redis): for `/readyz`. */
  ping?(): Promise<unknown>;
}
