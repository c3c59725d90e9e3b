import { createContext, useContext, useMemo } from 'react';
import type { Components } from 'react-markdown';
import { Link } from 'react-router';
import type { Member } from '../api.ts';
import Markdown from './markdown.ts';

/**
 * Markdown as the card dialog shows it (raw HTML skipped, as everywhere), with mentions as chips: a
 * handle (`@` and a team member's full name without its spaces, what the suggestions insert and what
 * the server tells: docs/decisions/0250-mentions.md) shows the person's name, linking to the board
 * filtered by them. A handle of nobody on the team stays plain text, as the server treats it.
 */

/** Whom a handle may name (the card's team) and the board a chip filters. */
export interface MentionScope {
  members: readonly Member[];
  boardId: string;
  meId: string | undefined;
}

export const MentionContext = createContext<MentionScope | null>(null);

interface MdNode {
  type: string;
  value?: string;
  url?: string;
  title?: string | null;
  children?: MdNode[];
  data?: { hProperties?: Record<string, unknown> };
}

const WORD = /[\p{L}\p{N}_]/u;
/** Text inside these names nobody: code, and links (a chip is a link of its own). */
const SKIP = new Set(['code', 'inlineCode', 'link', 'linkReference', 'definition', 'html']);

/** The text split into text and mention links. */
function splitMentions(value: string, scope: MentionScope, handles: { member: Member; handle: string }[]): MdNode[] {
  const lower = value.toLowerCase();
  // a letter whose lower case is longer would shift the positions: such a text is left as it is
  if (lower.length !== value.length || !value.includes('@')) return [{ type: 'text', value }];
  const parts: MdNode[] = [];
  let last = 0;
  for (let at = value.indexOf('@'); at !== -1; at = value.indexOf('@', at + 1)) {
    if (at < last || (at > 0 && WORD.test(value[at - 1] ?? ''))) continue;
    const hit = handles.find(({ handle }) => lower.startsWith(handle, at) && !WORD.test(lower[at + handle.length] ?? ''));
    if (!hit) continue;
    if (at > last) parts.push({ type: 'text', value: value.slice(last, at) });
    const classes = hit.member._id === scope.meId ? ['mention', 'me'] : ['mention'];
    parts.push({
      type: 'link',
      url: `/boards/${scope.boardId}?members=${hit.member._id}`,
      title: null,
      data: { hProperties: { className: classes, 'data-mention': hit.member._id } },
      children: [{ type: 'text', value: `@${hit.member.fullName}` }],
    });
    last = at + hit.handle.length;
  }
  if (last === 0) return [{ type: 'text', value }];
  if (last < value.length) parts.push({ type: 'text', value: value.slice(last) });
  return parts;
}

/** The remark plugin that turns handles into mention links. */
function remarkMentions(scope: MentionScope) {
  // the longest handle first, so `@AnaLopez` is not read as `@Ana` of another person
  const handles = scope.members
    .map((member) => ({ member, handle: `@${member.fullName.replace(/\s+/g, '').toLowerCase()}` }))
    .filter(({ handle }) => handle.length > 1)
    .sort((a, b) => b.handle.length - a.handle.length);
  const walk = (node: MdNode) => {
    if (!node.children || SKIP.has(node.type)) return;
    node.children = node.children.flatMap((child) =>
      child.type === 'text' && child.value !== undefined ? splitMentions(child.value, scope, handles) : [child],
    );
    for (const child of node.children) walk(child);
  };
  return () => (tree: MdNode) => walk(tree);
}

/** A mention is a link inside the app (no reload); any other link stays as Markdown makes it. */
const components: Components = {
  a: ({ node: _node, className, href, children, ...rest }) =>
    className?.split(' ').includes('mention') && href ? (
      <Link to={href} className={className} data-mention={(rest as Record<string, unknown>)['data-mention'] as string}>
        {children}
      </Link>
    ) : (
      <a href={href} className={className} {...rest}>
        {children}
      </a>
    ),
};

/** Markdown with mentions shown as chips when the dialog gives the team (MentionContext), HTML-looking text as written. */
export function RichText({ text }: { text: string }) {
  const scope = useContext(MentionContext);
  const plugins = useMemo(() => (scope && scope.members.length ? [remarkMentions(scope)] : []), [scope]);
  return (
    <Markdown skipHtml remarkPlugins={plugins} components={components}>
      {text}
    </Markdown>
  );
}
