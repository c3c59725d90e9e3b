/** What the administration pages share beside web/src/parts.tsx: the roles, reads that are never cached, the refusals. */

import { useQueryClient } from '@tanstack/react-query';
import type { paths } from '@taskboard/client';
import { useEffect } from 'react';
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

/** Whether an answer says the caller may not administer the company (a 403, or a 404 outside it). */
export const refused = (error: unknown) => error instanceof ApiError && (error.status === 403 || error.status === 404);

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
