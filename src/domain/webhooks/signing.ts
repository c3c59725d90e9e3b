/**
 * Standard Webhooks 1.0 signing, by the `standardwebhooks` package: `webhook-id`,
 * `webhook-timestamp` (seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of
 * id.timestamp.body>`). While a rotated-out secret still signs, both signatures are sent,
 * space-separated, so a receiver holding either secret verifies.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookRow } from '../../storage/repositories/webhooks.ts';

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks headers of one attempt to send `body` as message `id` at `at` (epoch ms). */
export function signedHeaders(secrets: readonly string[], id: string, at: number, body: string): Record<string, string> {
  const timestamp = new Date(at);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' '),
  };
}

/** Whether the secret a rotation replaced still signs at `at` (ISO): for ROTATION_OVERLAP_MS after the rotation. */
export function previousSecretSigns(webhook: Pick<WebhookRow, 'previous_secret' | 'previous_secret_expires_at'>, at: string): boolean {
  return webhook.previous_secret !== null && webhook.previous_secret_expires_at !== null && webhook.previous_secret_expires_at > at;
}
