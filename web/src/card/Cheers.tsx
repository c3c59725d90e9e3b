import { isEmojiSupported } from 'is-emoji-supported';
import { Heart, type LucideIcon, PartyPopper, Rocket, ThumbsUp } from 'lucide-react';
import { useState } from 'react';
import { client, type Member, unwrap } from '../api.ts';
import { formatList } from '../i18n/messages.ts';
import { t } from '../strings.ts';
import { type Cheer, nameOf } from './queries.ts';

export type CheerTarget = { kind: 'card' | 'comment' | 'discussion' | 'attachment'; id: string; cardId: string };

/** The cheers a person picks from; any other content a cheer carries (from the API) shows too. */
const PALETTE = ['👍', '🎉', '❤️', '🚀'] as const;
/** What the palette shows where no emoji font renders it (an empty box otherwise); names stay the emoji. */
const PALETTE_ICONS: Record<string, LucideIcon> = { '👍': ThumbsUp, '🎉': PartyPopper, '❤️': Heart, '🚀': Rocket };

/** A cheer's content as the screen can show it: the emoji, or its icon when no font draws the emoji. */
function CheerGlyph({ content }: { content: string }) {
  const Icon = PALETTE_ICONS[content];
  if (Icon && !isEmojiSupported(content)) return <Icon className="cheer-icon" size={16} aria-hidden="true" data-emoji={content} />;
  return <span aria-hidden="true">{content}</span>;
}

async function addCheer(target: CheerTarget, content: string) {
  const body = { content };
  if (target.kind === 'card') unwrap(await client.POST('/api/v1/cards/{cardId}/cheers', { params: { path: { cardId: target.id } }, body }));
  else if (target.kind === 'comment') unwrap(await client.POST('/api/v1/comments/{commentId}/cheers', { params: { path: { commentId: target.id } }, body }));
  else if (target.kind === 'discussion')
    unwrap(await client.POST('/api/v1/discussions/{discussionId}/cheers', { params: { path: { discussionId: target.id } }, body }));
  else unwrap(await client.POST('/api/v1/attachments/{attachmentId}/cheers', { params: { path: { attachmentId: target.id } }, body }));
}

async function removeCheer(target: CheerTarget, cheerId: string) {
  if (target.kind === 'card') unwrap(await client.DELETE('/api/v1/cards/{cardId}/cheers/{cheerId}', { params: { path: { cardId: target.id, cheerId } } }));
  else if (target.kind === 'comment')
    unwrap(await client.DELETE('/api/v1/comments/{commentId}/cheers/{cheerId}', { params: { path: { commentId: target.id, cheerId } } }));
  else if (target.kind === 'discussion')
    unwrap(await client.DELETE('/api/v1/discussions/{discussionId}/cheers/{cheerId}', { params: { path: { discussionId: target.id, cheerId } } }));
  else unwrap(await client.DELETE('/api/v1/attachments/{attachmentId}/cheers/{cheerId}', { params: { path: { attachmentId: target.id, cheerId } } }));
}

/**
 * Cheers on one thing: each content a toggle of the person's own cheer, its count, and who cheered
 * (in the button's name and its tooltip).
 */
export function Cheers(props: {
  target: CheerTarget;
  what: string;
  cheers: Cheer[];
  people: Map<string, Member>;
  meId: string | undefined;
  onChange: () => Promise<unknown>;
  onError: (message: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const contents = [...new Set([...PALETTE, ...props.cheers.map((cheer) => cheer.content)])];
  return (
    <div className="cheers" role="group" aria-label={t.cheersOn(props.what)}>
      {contents.map((content) => {
        const given = props.cheers.filter((cheer) => cheer.content === content);
        const mine = given.find((cheer) => cheer.creator._id === props.meId);
        const names = given.map((cheer) => nameOf(props.people, cheer.creator._id));
        if (!given.length && !PALETTE.includes(content as (typeof PALETTE)[number])) return null;
        return (
          <button
            key={content}
            type="button"
            className={`cheer${given.length ? ' given' : ''}`}
            aria-pressed={Boolean(mine)}
            aria-label={t.cheerButton(content, names)}
            title={formatList(names, 'unit', 'short')}
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                if (mine) await removeCheer(props.target, mine._id);
                else await addCheer(props.target, content);
                await props.onChange();
              } catch (caught) {
                props.onError(caught instanceof Error ? caught.message : String(caught));
              } finally {
                setBusy(false);
              }
            }}
          >
            <CheerGlyph content={content} />
            {given.length ? <span aria-hidden="true"> {given.length}</span> : null}
          </button>
        );
      })}
    </div>
  );
}
