import { Type } from 'typebox';
import { Id } from './common.ts';

/** Request shapes of cheers (reactions); the Cheer record itself is in records.ts. */

export const MAX_CHEER_LENGTH = 64;

/**
 * An emoji or a short text on one line: 1 to 64 characters (code points) with at least one that is
 * not a space, no control characters (tab and newline neither), no unpaired surrogates; stored trimmed.
 */
export const CheerContent = Type.String({
  minLength: 1,
  maxLength: MAX_CHEER_LENGTH,
  pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f\\ud800-\\udfff]+$',
  description: `an emoji or a short text: 1 to ${MAX_CHEER_LENGTH} characters, one line, not blank; stored trimmed`,
  examples: ['👍', '🎉', 'Nice work'],
});

export const CheerBody = Type.Object({ content: CheerContent }, { additionalProperties: false });

export const CheerParams = {
  card: Type.Object({ cardId: Id }, { additionalProperties: false }),
  comment: Type.Object({ commentId: Id }, { additionalProperties: false }),
  discussion: Type.Object({ discussionId: Id }, { additionalProperties: false }),
  attachment: Type.Object({ attachmentId: Id }, { additionalProperties: false }),
};

export const CheerOfParentParams = {
  card: Type.Object({ cardId: Id, cheerId: Id }, { additionalProperties: false }),
  comment: Type.Object({ commentId: Id, cheerId: Id }, { additionalProperties: false }),
  discussion: Type.Object({ discussionId: Id, cheerId: Id }, { additionalProperties: false }),
  attachment: Type.Object({ attachmentId: Id, cheerId: Id }, { additionalProperties: false }),
};
