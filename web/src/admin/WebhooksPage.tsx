/**
 * The company's webhooks: create (URL and events; the secret shown once), rotate the secret (shown
 * once again), delete; and one webhook's deliveries with their status, code and time, each
 * redeliverable.
 */

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { type FormEvent, useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, type Company, client, unwrap } from '../api.ts';
import { Outcome, Part, ShownOnce, when } from '../parts.tsx';
import { t } from '../strings.ts';
import { ADMIN_STALE_TIME, Refused, refused } from './parts.tsx';

type Webhook = components['schemas']['Webhook'];
type Delivery = components['schemas']['WebhookDelivery'];

/** "card.* comment.created", "card.*, list.*": the event types a person typed. */
const typesOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function WebhooksPage({ company }: { company: Company }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const hintId = useId();
  const key = ['admin', company._id, 'webhooks'];
  const webhooks = useQuery({
    queryKey: key,
    staleTime: ADMIN_STALE_TIME,
    // a company has a handful of webhooks: the first page of 200 is all of them
    queryFn: async () => unwrap(await client.GET('/api/v1/webhooks', { params: { query: { companyId: company._id, limit: 200 } } })).webhooks,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const create = useMutation({
    mutationFn: async (body: { url: string; types: string[] }) =>
      unwrap(await client.POST('/api/v1/webhooks', { params: { query: { companyId: company._id } }, body })),
    onSuccess: (answer) => {
      setDone(null);
      setSecret({ url: answer.webhook.url, secret: answer.secret });
    },
    onSettled: refresh,
  });
  const rotate = useMutation({
    mutationFn: async (webhook: Webhook) =>
      unwrap(await client.POST('/api/v1/webhooks/{webhookId}/rotate-secret', { params: { path: { webhookId: webhook._id } } })),
    onSuccess: (answer) => {
      setDone(null);
      setSecret({ url: answer.webhook.url, secret: answer.secret });
    },
    onSettled: refresh,
  });
  const toggle = useMutation({
    mutationFn: async (webhook: Webhook) =>
      unwrap(await client.PATCH('/api/v1/webhooks/{webhookId}', { params: { path: { webhookId: webhook._id } }, body: { enabled: !webhook.enabled } })).webhook,
    onSuccess: (webhook) => setDone(t.webhookSwitched(webhook.url, webhook.enabled)),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: async (webhook: Webhook) => {
      unwrap(await client.DELETE('/api/v1/webhooks/{webhookId}', { params: { path: { webhookId: webhook._id } } }));
      return webhook;
    },
    onSuccess: (webhook) => {
      if (secret?.url === webhook.url) setSecret(null);
      setDone(t.webhookDeleted(webhook.url));
    },
    onSettled: refresh,
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    create.mutate({ url: String(form.get('url')).trim(), types: typesOf(String(form.get('types'))) }, { onSuccess: () => formElement.reset() });
  }
  if (refused(webhooks.error)) return <Refused />;
  const busy = create.isPending || rotate.isPending || remove.isPending || toggle.isPending;
  return (
    <Part title={t.webhooks}>
      {secret ? (
        <ShownOnce
          label={t.webhookSecretFor(secret.url)}
          hint={t.webhookSecretHint}
          value={secret.secret}
          copied={t.secretCopied}
          copyFailed={t.secretCopyFailed}
          onDone={() => setSecret(null)}
        />
      ) : null}
      <ul className="admin-rows">
        {webhooks.data?.map((webhook) => (
          <li key={webhook._id} className="admin-row">
            <span className="admin-row-text">
              <Link to={webhook._id} aria-label={t.deliveriesOf(webhook.url)}>
                {webhook.url}
              </Link>
              <span className="muted">
                {' '}
                {t.webhookSummary(webhook.types.join(' '))} · {webhook.enabled ? t.webhookEnabled : t.webhookDisabled(webhook.disabledReason)}
              </span>
            </span>
            <button
              type="button"
              aria-label={webhook.enabled ? t.disableWebhookNamed(webhook.url) : t.enableWebhookNamed(webhook.url)}
              disabled={busy}
              onClick={() => toggle.mutate(webhook)}
            >
              {webhook.enabled ? t.disableWebhook : t.enableWebhook}
            </button>
            <button
              type="button"
              aria-label={t.rotateSecretNamed(webhook.url)}
              disabled={busy}
              onClick={() => {
                if (window.confirm(t.confirmRotateSecret(webhook.url))) rotate.mutate(webhook);
              }}
            >
              {t.rotateSecret}
            </button>
            <button
              type="button"
              aria-label={t.deleteWebhookNamed(webhook.url)}
              disabled={busy}
              onClick={() => {
                if (window.confirm(t.confirmDeleteWebhook(webhook.url))) remove.mutate(webhook);
              }}
            >
              {t.delete}
            </button>
          </li>
        ))}
      </ul>
      {webhooks.data?.length === 0 ? <p className="muted">{t.noWebhooks}</p> : null}
      <form className="admin-form" onSubmit={submit}>
        <label>
          {t.webhookUrl}
          <input name="url" type="url" required maxLength={2048} placeholder="https://hooks.example.com/taskboard" />
        </label>
        <label>
          {t.webhookEvents}
          <input name="types" required defaultValue="*" aria-describedby={hintId} />
        </label>
        <p id={hintId} className="muted">
          {t.webhookEventsHint}
        </p>
        <button type="submit" className="primary" disabled={busy}>
          {t.createWebhook}
        </button>
      </form>
      <Outcome error={create.error ?? rotate.error ?? remove.error ?? toggle.error ?? webhooks.error} success={done} />
    </Part>
  );
}

export function DeliveriesPage({ company }: { company: Company }) {
  const { webhookId = '' } = useParams();
  const queryClient = useQueryClient();
  const [done, setDone] = useState<string | null>(null);
  const webhook = useQuery({
    queryKey: ['admin', company._id, 'webhook', webhookId],
    staleTime: ADMIN_STALE_TIME,
    queryFn: async () => unwrap(await client.GET('/api/v1/webhooks/{webhookId}', { params: { path: { webhookId } } })).webhook,
  });
  const key = ['admin', company._id, 'deliveries', webhookId];
  const deliveries = useInfiniteQuery({
    queryKey: key,
    staleTime: ADMIN_STALE_TIME,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await client.GET('/api/v1/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId }, query: { limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    // while a delivery waits for its attempt, its outcome is re-read every few seconds
    refetchInterval: (query) => (query.state.data?.pages.some((page) => page.deliveries.some((delivery) => delivery.status === 'pending')) ? 2_000 : false),
  });
  const redeliver = useMutation({
    mutationFn: async (delivery: Delivery) =>
      unwrap(await client.POST('/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', { params: { path: { webhookId, deliveryId: delivery._id } } }))
        .delivery,
    onSuccess: (delivery) => setDone(t.redelivered(delivery.type)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  if (webhook.error instanceof ApiError && webhook.error.status === 403) return <Refused />;
  // a webhook deleted, or of another company
  if ((webhook.error instanceof ApiError && webhook.error.status === 404) || (webhook.data && webhook.data.company !== company._id)) return <p>{t.notFound}</p>;
  const rows = deliveries.data?.pages.flatMap((page) => page.deliveries) ?? [];
  return (
    <Part title={t.deliveriesOf(webhook.data?.url ?? '')}>
      <p>
        <Link to={`/admin/${company._id}/webhooks`}>{t.backToWebhooks}</Link>
      </p>
      <button type="button" onClick={() => deliveries.refetch()}>
        {t.refresh}
      </button>
      {rows.length > 0 ? (
        <table className="admin-table">
          <caption className="visually-hidden">{t.deliveries}</caption>
          <thead>
            <tr>
              <th scope="col">{t.deliveryEvent}</th>
              <th scope="col">{t.deliveryStatus}</th>
              <th scope="col">{t.deliveryCode}</th>
              <th scope="col">{t.deliveryTime}</th>
              <th scope="col">{t.deliveryAttempts}</th>
              <th scope="col">{t.deliveryActions}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((delivery) => {
              const time = when(delivery.lastAttemptAt ?? delivery.createdAt);
              return (
                <tr key={delivery._id}>
                  <th scope="row">{delivery.type}</th>
                  <td>{t.deliveryStatusNames[delivery.status] ?? delivery.status}</td>
                  <td title={delivery.lastError ?? undefined}>{delivery.lastStatusCode ?? t.noStatusCode}</td>
                  <td>
                    <time dateTime={delivery.lastAttemptAt ?? delivery.createdAt}>{time}</time>
                  </td>
                  <td>{delivery.attempts}</td>
                  <td>
                    <button
                      type="button"
                      aria-label={t.redeliverNamed(delivery.type, time)}
                      disabled={redeliver.isPending}
                      onClick={() => redeliver.mutate(delivery)}
                    >
                      {t.redeliver}
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {deliveries.data && rows.length === 0 ? <p className="muted">{t.noDeliveries}</p> : null}
      {deliveries.hasNextPage ? (
        <button type="button" disabled={deliveries.isFetchingNextPage} onClick={() => deliveries.fetchNextPage()}>
          {t.loadMore}
        </button>
      ) : null}
      <Outcome error={redeliver.error ?? deliveries.error ?? webhook.error} success={done} />
    </Part>
  );
}
