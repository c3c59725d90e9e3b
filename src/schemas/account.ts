import { Type } from 'typebox';
import { Id, TEXT_CAPS, Text, UpdateOf } from './common.ts';
import { ApiKey, ApiKeyAccess, Company, Locale, Team, TimeZone, User } from './records.ts';

/** A key may be limited to at most this many teams. */
export const MAX_KEY_TEAMS = 100;

export const CreateApiKeyBody = Type.Object(
  {
    name: Text({ maxLength: TEXT_CAPS.apiKeyName, blank: false, description: 'what the key is for, e.g. "ci"' }),
    access: Type.Optional(ApiKeyAccess),
    teams: Type.Optional(
      Type.Array(Id, {
        minItems: 1,
        maxItems: MAX_KEY_TEAMS,
        description: 'limit the key to these teams (each one the caller reaches); absent: every team',
      }),
    ),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'when the key stops working; in the future; absent: never' })),
  },
  { additionalProperties: false },
);

export const ApiKeyParams = Type.Object({ keyId: Id }, { additionalProperties: false });

export const MeResponse = Type.Object({
  message: Type.String(),
  user: User,
  companies: Type.Array(Company, { description: "the caller's companies, each with the caller's role" }),
  teams: Type.Array(Team, { description: 'the teams the caller is a member of, with their members' }),
});

export const ApiKeysResponse = Type.Object({ message: Type.String(), apiKeys: Type.Array(ApiKey) });

export const ApiKeyResponse = Type.Object({ message: Type.String(), apiKey: ApiKey });

export const IssuedApiKeyResponse = Type.Object({
  message: Type.String(),
  apiKey: ApiKey,
  token: Type.String({ description: 'the API key itself; shown only in this answer, store it now' }),
});

export const UpdateMeBody = UpdateOf({
  fullName: Text({ maxLength: TEXT_CAPS.fullName, blank: false }),
  photoUrl: Text({ maxLength: TEXT_CAPS.url, description: 'an image URL; "" removes the photo' }),
  emailNotifications: Type.Boolean({ description: "true: the caller's notifications are also mailed, gathered per minute (when the server sends mail)" }),
  locale: Locale,
  timeZone: TimeZone,
});
