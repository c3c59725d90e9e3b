import { type Static, Type } from 'typebox';
import { Id, IdOf, Name, TEXT_CAPS, Text, Timestamp } from './common.ts';
import { UserFields } from './records.ts';

/** Request and answer shapes of companies and teams beyond the Company and Team records. */

export const CompanyRole = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);

/** A user's membership of a company: the user's record plus the role there. */
export const CompanyMember = Type.Object({
  ...UserFields,
  company: Id,
  role: CompanyRole,
  joinedAt: Timestamp,
});
export type CompanyMember = Static<typeof CompanyMember>;

export const CompanyParams = Type.Object({ companyId: Id }, { additionalProperties: false });

/** `companyId` may repeat the path's company; it must then match it (else 404). */
export const CompanyScopeQuery = Type.Object({ companyId: Type.Optional(Id) }, { additionalProperties: false });

export const CreateCompanyBody = Type.Object({ name: Name }, { additionalProperties: false });

export const AddCompanyMemberBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254, description: 'matched without regard to case' }),
    fullName: Text({
      maxLength: TEXT_CAPS.fullName,
      blank: false,
      description: "the name of a new user; an existing user's name is kept",
    }),
    role: CompanyRole,
  },
  { additionalProperties: false },
);
export type AddCompanyMemberBody = Static<typeof AddCompanyMemberBody>;

/** Creating a team names its company. */
export const CreateTeamQuery = Type.Object({ companyId: Id }, { additionalProperties: false });

export const CreateTeamBody = Type.Object({ name: Name }, { additionalProperties: false });

export const TeamParams = Type.Object({ teamId: Id }, { additionalProperties: false });
export const TeamMemberParams = Type.Object({ teamId: Id, userId: Id }, { additionalProperties: false });

export const AddTeamMemberBody = Type.Object({ userId: IdOf("a member of the team's company: 24 lowercase hex characters") }, { additionalProperties: false });

export const UpdateCompanyBody = Type.Object({ name: Name }, { additionalProperties: false });
export const UpdateTeamBody = Type.Object({ name: Name }, { additionalProperties: false });
export const CompanyMemberParams = Type.Object({ companyId: Id, userId: Id }, { additionalProperties: false });
export const ChangeMemberRoleBody = Type.Object({ role: CompanyRole }, { additionalProperties: false });
