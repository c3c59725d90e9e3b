import { useEffect, useId, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { client, type Member, unwrap } from '../api.ts';
import { t } from '../strings.ts';
import { deleteWithUndo, useHiddenByUndo } from '../ui/undoableDelete.ts';
import { Cheers } from './Cheers.tsx';
import { when } from './dates.ts';
import { type Comment, type Discussion, useComments } from './queries.ts';
import { RichText } from './RichText.tsx';

type Run = (work: () => Promise<unknown>) => Promise<boolean>;

/** The `@word` being typed just before the caret, if any. */
function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const match = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (!match) return null;
  return { start: caret - (match[2] ?? '').length - 1, query: match[2] ?? '' };
}

/**
 * A Markdown text box that suggests the team's members after `@` (arrows pick, Enter or Tab takes,
 * Escape leaves the text as typed), with a preview of what the text will look like. A suggestion
 * inserts the person's handle: `@` and their full name without its spaces, which tells them when
 * saved (docs/decisions/0250-mentions.md). Only the card's team is suggested: the people who reach it.
 */
export function MarkdownComposer(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  members: Member[];
  submitLabel: string;
  onSubmit: () => void;
  onCancel?: () => void;
  autoFocus?: boolean;
  /** The text may be saved empty (a description cleared); a comment may not. */
  allowEmpty?: boolean;
  rows?: number;
}) {
  const id = useId();
  const ref = useRef<HTMLTextAreaElement>(null);
  const [mention, setMention] = useState<{ start: number; query: string } | null>(null);
  const [active, setActive] = useState(0);
  const matches = mention
    ? props.members.filter((member) => member.fullName.toLowerCase().replace(/\s+/g, '').startsWith(mention.query.toLowerCase())).slice(0, 6)
    : [];
  const open = matches.length > 0;

  function take(member: Member) {
    if (!mention) return;
    const caret = ref.current?.selectionStart ?? props.value.length;
    const handle = `@${member.fullName.replace(/\s+/g, '')} `;
    const next = props.value.slice(0, mention.start) + handle + props.value.slice(caret);
    props.onChange(next);
    setMention(null);
    const at = mention.start + handle.length;
    requestAnimationFrame(() => ref.current?.setSelectionRange(at, at));
  }

  return (
    <div className="md-composer">
      <textarea
        ref={ref}
        aria-label={props.label}
        rows={props.rows ?? 3}
        value={props.value}
        autoFocus={props.autoFocus}
        aria-controls={open ? `${id}-mentions` : undefined}
        aria-activedescendant={open ? `${id}-m${active}` : undefined}
        aria-autocomplete="list"
        onChange={(event) => {
          props.onChange(event.target.value);
          setMention(mentionAt(event.target.value, event.target.selectionStart));
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (open) {
            if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
              event.preventDefault();
              setActive((index) => (index + (event.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
              return;
            }
            if (event.key === 'Enter' || event.key === 'Tab') {
              event.preventDefault();
              const member = matches[active];
              if (member) take(member);
              return;
            }
            if (event.key === 'Escape') {
              event.preventDefault();
              event.stopPropagation();
              setMention(null);
              return;
            }
          }
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            props.onSubmit();
          } else if (event.key === 'Escape' && props.onCancel) {
            event.preventDefault();
            event.stopPropagation();
            props.onCancel();
          }
        }}
      />
      {open ? (
        <div className="mentions" role="listbox" id={`${id}-mentions`} aria-label={t.mentionSuggestions}>
          {matches.map((member, index) => (
            // The text box's arrows and Enter choose (focus stays in the text); the mouse picks with a press.
            <div
              key={member._id}
              id={`${id}-m${index}`}
              role="option"
              tabIndex={-1}
              aria-selected={index === active}
              onMouseDown={(event) => {
                event.preventDefault();
                take(member);
              }}
            >
              {member.fullName}
            </div>
          ))}
        </div>
      ) : null}
      <div className="composer-actions">
        <button type="button" className="primary" disabled={!props.allowEmpty && !props.value.trim()} onClick={props.onSubmit}>
          {props.submitLabel}
        </button>
        {props.onCancel ? (
          <button type="button" onClick={props.onCancel}>
            {t.cancel}
          </button>
        ) : null}
      </div>
      {props.value.trim() ? (
        <div className="markdown preview" role="group" aria-label={t.preview}>
          <RichText text={props.value} />
        </div>
      ) : null}
    </div>
  );
}

export function Comments(props: {
  cardId: string;
  members: Member[];
  people: Map<string, Member>;
  meId: string | undefined;
  run: Run;
  refresh: () => Promise<unknown>;
  onError: (message: string) => void;
}) {
  const { cardId, run } = props;
  const comments = useComments(cardId);
  const [draft, setDraft] = useState('');
  const all = comments.data?.pages.flatMap((page) => page.comments) ?? [];
  // what was deleted here while its Undo is offered is not shown (comments and replies alike)
  const hidden = useHiddenByUndo();
  // a search opened the card at one of its comments or replies (`?item=`): older pages are read
  // until it shows, for the search box to scroll to it; a checklist item or attachment shows already
  const wanted = new URLSearchParams(useLocation().search).get('item');
  const shown = wanted !== null && all.some((comment) => comment._id === wanted || comment.discussions.some((reply) => reply._id === wanted));
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = comments;
  useEffect(() => {
    if (wanted === null || !/^[0-9a-f]{24}$/.test(wanted) || shown || !hasNextPage || isFetchingNextPage) return;
    if (document.querySelector(`[data-item-id="${wanted}"]`)) return;
    void fetchNextPage();
  }, [wanted, shown, hasNextPage, isFetchingNextPage, fetchNextPage]);

  async function send() {
    const content = draft.trim();
    if (!content) return;
    if (await run(() => client.POST('/api/v1/cards/{cardId}/comments', { params: { path: { cardId } }, body: { content } }).then(unwrap))) setDraft('');
  }

  return (
    <div className="comments">
      <MarkdownComposer
        label={t.writeComment}
        value={draft}
        onChange={setDraft}
        members={props.members}
        submitLabel={t.sendComment}
        onSubmit={() => void send()}
      />
      <ol className="comment-list">
        {all
          .filter((comment) => !hidden.has(comment._id))
          .map((comment) => (
            <CommentView key={comment._id} comment={comment} {...props} />
          ))}
      </ol>
      {comments.hasNextPage ? (
        <button type="button" disabled={comments.isFetchingNextPage} onClick={() => void comments.fetchNextPage()}>
          {t.loadMoreComments}
        </button>
      ) : null}
    </div>
  );
}

function Post(props: {
  post: Comment | Discussion;
  kind: 'comment' | 'discussion';
  members: Member[];
  people: Map<string, Member>;
  meId: string | undefined;
  cardId: string;
  run: Run;
  refresh: () => Promise<unknown>;
  onError: (message: string) => void;
  children?: React.ReactNode;
}) {
  const { post, run } = props;
  const [editing, setEditing] = useState<string | null>(null);
  const mine = post.creator._id === props.meId;
  const id = useId();
  const author = post.creator.fullName;

  async function save() {
    const content = editing?.trim();
    if (!content) return;
    const done =
      props.kind === 'comment'
        ? await run(() => client.PATCH('/api/v1/comments/{commentId}', { params: { path: { commentId: post._id } }, body: { content } }).then(unwrap))
        : await run(() => client.PATCH('/api/v1/discussions/{discussionId}', { params: { path: { discussionId: post._id } }, body: { content } }).then(unwrap));
    if (done) setEditing(null);
  }
  /** Deleted at once on the page, sent when its Undo is no longer offered (replies go with a comment). */
  function remove() {
    if (props.kind === 'comment')
      deleteWithUndo({
        id: post._id,
        text: t.commentDeleted((post as Comment).discussions.length),
        path: `/api/v1/comments/${post._id}`,
        remove: () => run(() => client.DELETE('/api/v1/comments/{commentId}', { params: { path: { commentId: post._id } } }).then(unwrap)),
      });
    else
      deleteWithUndo({
        id: post._id,
        text: t.replyDeleted,
        path: `/api/v1/discussions/${post._id}`,
        remove: () => run(() => client.DELETE('/api/v1/discussions/{discussionId}', { params: { path: { discussionId: post._id } } }).then(unwrap)),
      });
  }

  return (
    <article className={props.kind} aria-labelledby={`${id}-by`} data-item-id={post._id}>
      <header>
        <span id={`${id}-by`} className="author">
          {props.kind === 'comment' ? t.commentBy(author) : t.replyBy(author)}
        </span>{' '}
        <time className="muted" dateTime={post.createdAt}>
          {when(post.createdAt)}
        </time>
      </header>
      {editing !== null ? (
        <MarkdownComposer
          label={props.kind === 'comment' ? t.editComment : t.editReply}
          value={editing}
          onChange={setEditing}
          members={props.members}
          submitLabel={t.save}
          onSubmit={() => void save()}
          onCancel={() => setEditing(null)}
          autoFocus
        />
      ) : (
        <div className="markdown">
          <RichText text={post.content} />
        </div>
      )}
      <div className="post-actions">
        <Cheers
          target={{ kind: props.kind, id: post._id, cardId: props.cardId }}
          what={props.kind === 'comment' ? t.commentBy(author) : t.replyBy(author)}
          cheers={post.cheers}
          people={props.people}
          meId={props.meId}
          onChange={props.refresh}
          onError={props.onError}
        />
        {mine && editing === null ? (
          <>
            <button type="button" className="link-button" onClick={() => setEditing(post.content)}>
              {t.edit}
            </button>
            <button type="button" className="link-button" onClick={remove}>
              {t.delete}
            </button>
          </>
        ) : null}
      </div>
      {props.children}
    </article>
  );
}

function CommentView(props: {
  comment: Comment;
  members: Member[];
  people: Map<string, Member>;
  meId: string | undefined;
  cardId: string;
  run: Run;
  refresh: () => Promise<unknown>;
  onError: (message: string) => void;
}) {
  const { comment, run } = props;
  const hidden = useHiddenByUndo();
  const [reply, setReply] = useState<string | null>(null);
  async function send() {
    const content = reply?.trim();
    if (!content) return;
    if (
      await run(() => client.POST('/api/v1/comments/{commentId}/discussions', { params: { path: { commentId: comment._id } }, body: { content } }).then(unwrap))
    )
      setReply(null);
  }
  return (
    <li>
      <Post post={comment} kind="comment" {...props}>
        {comment.discussions.length ? (
          <ol className="discussions">
            {comment.discussions
              .filter((discussion) => !hidden.has(discussion._id))
              .map((discussion) => (
                <li key={discussion._id}>
                  <Post post={discussion} kind="discussion" {...props} />
                </li>
              ))}
          </ol>
        ) : null}
        {reply !== null ? (
          <MarkdownComposer
            label={t.writeReply}
            value={reply}
            onChange={setReply}
            members={props.members}
            submitLabel={t.sendReply}
            onSubmit={() => void send()}
            onCancel={() => setReply(null)}
            autoFocus
          />
        ) : (
          <button type="button" className="link-button" onClick={() => setReply('')}>
            {t.reply}
          </button>
        )}
      </Post>
    </li>
  );
}
