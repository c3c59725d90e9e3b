import { createElement } from 'react';
import ReactMarkdown, { type Options } from 'react-markdown';

/** What this needs of a Markdown syntax tree's node (mdast). */
interface MarkdownNode {
  type: string;
  value?: string;
  children?: MarkdownNode[];
}

/** Where text may stand as it is; elsewhere (the document, a quote, a list item) it goes in a paragraph. */
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'emphasis', 'strong', 'delete', 'link', 'linkReference', 'tableCell']);

function asText(parent: MarkdownNode): void {
  if (!parent.children) return;
  parent.children = parent.children.map((child) => {
    if (child.type === 'html') {
      const text = { type: 'text', value: child.value ?? '' };
      return PHRASING_PARENTS.has(parent.type) ? text : { type: 'paragraph', children: [text] };
    }
    asText(child);
    return child;
  });
}

/**
 * Text that looks like HTML (`use the <Button> component`, a pasted `<div>`) is shown as written:
 * the Markdown parser reads it as HTML, and this turns it back into text, which React escapes. No
 * HTML is ever rendered, so no script runs; links keep react-markdown's own URL check.
 */
export function htmlAsText() {
  return (tree: MarkdownNode) => asText(tree);
}

/** Markdown as the card dialog shows it (descriptions, comments, replies): HTML-looking text shown as written. */
export function Markdown({ remarkPlugins, ...props }: Options) {
  // createElement, not JSX: the server's tests render it without the web app's JSX settings
  return createElement(ReactMarkdown, { ...props, remarkPlugins: [htmlAsText, ...(remarkPlugins ?? [])] });
}

export default Markdown;
