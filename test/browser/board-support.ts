/** What the board page's browser tests share: the accessibility scan, finding a card, the API beside the page. */
import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/** axe-core on what the page shows now: no serious or critical violation. */
export async function axe(page: Page, what: string) {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    bad.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(' | ')}`),
    [],
    `serious or critical accessibility violations on ${what}`,
  );
}

/** The card named `card` (its name starts with it) in the list region named `list`. */
export const cardIn = (page: Page, list: string, card: string) =>
  page.getByRole('region', { name: list, exact: true }).getByRole('button', { name: new RegExp(`^${card}`) });

/** A JSON call to the API with the tenant's key, as another client of the board would make it; fails on an error answer. */
export function apiCaller(baseURL: () => string, apiKey: () => string) {
  return async function api<T = Record<string, never>>(method: string, path: string, body?: unknown): Promise<T & Record<string, unknown>> {
    const response = await fetch(`${baseURL()}${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey()}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as T & Record<string, unknown>;
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
}
