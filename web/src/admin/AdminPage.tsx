/**
 * Company administration for its owners and admins: members and invitations, teams, webhooks and
 * their deliveries, and for owners the audit log. Loaded only when opened. The header links here only for owners and admins; the
 * page asks the same of Get Me, and a refusal of the API (a role changed meanwhile) shows the same
 * "not allowed" page: the API decides reach, the page only follows it.
 */
import { Link, Navigate, NavLink, Route, Routes, useParams } from 'react-router';
import { administers, type Company } from '../api.ts';
import { useMe } from '../session.ts';
import { t } from '../strings.ts';
import { AuditPage } from './AuditPage.tsx';
import { auditText } from './audit-strings.ts';
import { MembersPage } from './MembersPage.tsx';
import { NotAllowed } from './parts.tsx';
import { TeamsPage } from './TeamsPage.tsx';
import { DeliveriesPage, WebhooksPage } from './WebhooksPage.tsx';
import './admin.css';

export default function AdminPage() {
  const me = useMe();
  if (!me.data) return <p className="page-pad">{t.loading}</p>;
  const companies = me.data.companies.filter((company) => administers(company.role));
  const first = companies[0];
  return (
    <Routes>
      <Route index element={first ? <Navigate to={`${first._id}/members`} replace /> : <NotAllowed />} />
      <Route path=":companyId/*" element={<CompanyAdmin companies={companies} />} />
    </Routes>
  );
}

function CompanyAdmin({ companies }: { companies: Company[] }) {
  const { companyId } = useParams();
  const company = companies.find((candidate) => candidate._id === companyId);
  if (!company) return <NotAllowed />;
  return (
    <div className="admin page-pad">
      <h1>{t.adminTitle(company.name)}</h1>
      {companies.length > 1 ? (
        <nav aria-label={t.adminCompany} className="admin-companies">
          {companies.map((other) => (
            <Link key={other._id} to={`/admin/${other._id}/members`} aria-current={other._id === company._id ? 'page' : undefined}>
              {other.name}
            </Link>
          ))}
        </nav>
      ) : null}
      <nav aria-label={t.adminSections} className="admin-sections">
        <NavLink to={`/admin/${company._id}/members`}>{t.members}</NavLink>
        <NavLink to={`/admin/${company._id}/teams`}>{t.teams}</NavLink>
        <NavLink to={`/admin/${company._id}/webhooks`} end={false}>
          {t.webhooks}
        </NavLink>
        {company.role === 'owner' ? <NavLink to={`/admin/${company._id}/audit`}>{auditText.title}</NavLink> : null}
      </nav>
      <Routes>
        <Route index element={<Navigate to="members" replace />} />
        <Route path="members" element={<MembersPage company={company} />} />
        <Route path="teams" element={<TeamsPage company={company} />} />
        <Route path="webhooks" element={<WebhooksPage company={company} />} />
        <Route path="webhooks/:webhookId" element={<DeliveriesPage company={company} />} />
        <Route path="audit" element={company.role === 'owner' ? <AuditPage company={company} /> : <p>{t.notAllowed}</p>} />
        <Route path="*" element={<p>{t.notFound}</p>} />
      </Routes>
    </div>
  );
}
