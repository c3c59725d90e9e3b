/**
 * The card dialog's Markdown (web/src/card/markdown.ts): text that looks like HTML shows as
 * written, escaped, inside code or out; nothing is rendered as HTML, so no script or handler exists
 * in the output; Markdown itself still renders, and a javascript: link loses its address.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

// Loaded by a path the compiler does not follow: React's types would stand in for the DOM's in the
// server's type check, which has no DOM.
const load = (path: string) => import(path);
const { createElement } = await load('react');
const { renderToStaticMarkup } = await load('react-dom/server');
const { Markdown } = await load('../../web/src/card/markdown.ts');
const html = (text: string): string => renderToStaticMarkup(createElement(Markdown, { skipHtml: true }, text));

describe('Markdown in the card dialog', () => {
  it('shows a bare <Button> as written, beside code that holds one', () => {
    assert.equal(html('use the <Button> component'), '<p>use the &lt;Button&gt; component</p>');
    assert.equal(html('use the `<Button>` component'), '<p>use the <code>&lt;Button&gt;</code> component</p>');
    assert.equal(html('**bold** and <b>not bold</b>'), '<p><strong>bold</strong> and &lt;b&gt;not bold&lt;/b&gt;</p>');
  });

  it('keeps a block of HTML as text in a paragraph, in a list and in a quote', () => {
    assert.equal(html('<div class="x">\nhello\n</div>'), '<p>&lt;div class=&quot;x&quot;&gt;\nhello\n&lt;/div&gt;</p>');
    assert.equal(html('- an <input> field'), '<ul>\n<li>an &lt;input&gt; field</li>\n</ul>');
    assert.equal(html('> <!-- a comment -->'), '<blockquote>\n<p>&lt;!-- a comment --&gt;</p>\n</blockquote>');
  });

  it('never renders a script, an event handler or a javascript: link', () => {
    const out = html('<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[click](javascript:alert(3)) <a href="javascript:alert(4)">x</a>');
    assert.ok(!/<script|<img|<a href="javascript/i.test(out), out);
    assert.ok(out.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), out);
    assert.ok(out.includes('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;'), out);
    assert.ok(out.includes('<a href="">click</a>'), out);
  });
});
