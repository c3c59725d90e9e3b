/** Small pieces the administration pages share: a titled region, an outcome line, a value shown once to copy. */

import { useQueryClient } from '@tanstack/react-query';
import type { paths } from '@taskboard/client';
import { type ReactNode, useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../api.ts';
import { t } from '../strings.ts';

export type CompanyMember = paths['/api/v1/companies/{companyId}/members']['get']['responses'][200]['content']['application/json']['members'][number];
export type Role = CompanyMember['role'];
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

/**
 * Who may do what changes under the page (another admin's change): every read of these pages asks
 * the API again when a part opens, so a refusal shows at once instead of what was cached.
 */
export const ADMIN_STALE_TIME = 0;

export const when = (iso: string) => new Date(iso).toLocaleString();

/** A refused write's message, as the server put it. */
export const problem = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Whether an answer says the caller may not administer the company (a 403, or a 404 outside it). */
export const refused = (error: unknown) => error instanceof ApiError && (error.status === 403 || error.status === 404);

/** A titled part of a page: a region named by its heading. */
export function Part({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className="admin-part" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** The outcome of the last action: the server's refusal as it words it, or what was done. */
export function Outcome({ error, success }: { error: unknown; success: string | null }) {
  if (error) {
    return (
      <p role="alert" className="error">
        {problem(error)}
      </p>
    );
  }
  return (
    <p role="status" className="muted">
      {success}
    </p>
  );
}

/** A value shown this once (a link, a secret): a read-only field, a Copy button and Done, which forgets it. */
export function ShownOnce({
  label,
  hint,
  value,
  copied,
  copyFailed,
  onDone,
}: {
  label: string;
  hint: string;
  value: string;
  copied: string;
  copyFailed: string;
  onDone: () => void;
}) {
  const id = useId();
  const [copy, setCopy] = useState<string | null>(null);
  return (
    <div className="admin-once" role="group" aria-labelledby={id}>
      <label id={id} htmlFor={`${id}-value`}>
        {label}
      </label>
      <p className="muted">{hint}</p>
      <div className="inline-form">
        <input id={`${id}-value`} readOnly value={value} onFocus={(event) => event.currentTarget.select()} />
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(value).then(
              () => setCopy(copied),
              () => setCopy(copyFailed),
            )
          }
        >
          {t.copy}
        </button>
        <button type="button" onClick={onDone}>
          {t.done}
        </button>
      </div>
      <p role="status" className="muted">
        {copy}
      </p>
    </div>
  );
}

/** What a person who does not administer the company sees, whatever address they typed. */
export function NotAllowed() {
  return (
    <div className="admin page-pad">
      <h1>{t.notAllowedTitle}</h1>
      <p>{t.notAllowed}</p>
      <Link to="/boards">{t.backToBoards}</Link>
    </div>
  );
}

/**
 * A section the API refused (the role changed since Get Me was read): Get Me is read again, after
 * which the whole page is the not-allowed page.
 */
export function Refused() {
  const queryClient = useQueryClient();
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: ['me'] });
  }, [queryClient]);
  return <p>{t.notAllowed}</p>;
}
