import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldText, parseSearchQuery } from '../../src/domain/search/query.ts';
import { snippetOf } from '../../src/domain/search/snippet.ts';
import { ValidationError } from '../../src/domain/shared/errors.ts';

describe('search query language', () => {
  it('reads words, phrases, exclusions and operators', () => {
    const q = parseSearchQuery(
      'Login  "Release Notes" -flaky -"old stuff" label:Bug member:me member:"Olive Owner" due:WEEK is:archived is:complete board:"My board" list:Doing has:attachments created:7',
    );
    assert.deepEqual(q.terms, ['login', 'release notes']);
    assert.deepEqual(q.excluded, ['flaky', 'old stuff']);
    assert.deepEqual(q.labels, ['Bug']);
    assert.deepEqual(q.members, ['me', 'Olive Owner']);
    assert.equal(q.due, 'week');
    assert.equal(q.archived, true);
    assert.equal(q.complete, true);
    assert.deepEqual(q.boards, ['My board']);
    assert.deepEqual(q.lists, ['Doing']);
    assert.equal(q.hasAttachments, true);
    assert.equal(q.createdDays, 7);
  });

  it('folds case and accents of Latin letters only', () => {
    assert.equal(foldText('CAFÉ Ärger naïve'), 'cafe arger naive');
    assert.equal(foldText('がっこう'), 'がっこう');
    assert.deepEqual(parseSearchQuery('Café 東京').terms, ['cafe', '東京']);
  });

  it('reads any other name before a colon or a comparison as a custom field', () => {
    assert.deepEqual(parseSearchQuery('Priority:high Estimate>3 Due<=2026-12-31 Reviewer:empty Notes:"two words"').fields, [
      { name: 'Priority', op: ':', value: 'high' },
      { name: 'Estimate', op: '>', value: '3' },
      { name: 'Due', op: '<=', value: '2026-12-31' },
      { name: 'Reviewer', op: 'empty', value: '' },
      { name: 'Notes', op: ':', value: 'two words' },
    ]);
    assert.deepEqual(parseSearchQuery('label:bug').fields, [], 'the operators keep their names');
  });

  it('a lone hyphen or a hyphen inside a word is text', () => {
    assert.deepEqual(parseSearchQuery('e-mail - x').terms, ['e-mail', '-', 'x']);
  });

  for (const [q, says] of [
    ['"open', /never closed/],
    ['-Estimate>3', /cannot be negated/],
    ['Estimate:', /needs a value/],
    ['due:soon', /due:overdue, due:day/],
    ['is:big', /is:archived/],
    ['has:cheers', /has:attachments/],
    ['created:x', /created:/],
    ['created:0', /created:/],
    ['label:', /needs a value/],
    ['-label:bug', /cannot be negated/],
    ['is:complete is:incomplete', /exclude each other/],
    ['-only', /exclusions only/],
    ['', /nothing to search for/],
    ['wo"rd', /quote inside/],
  ] as const) {
    it(`refuses ${JSON.stringify(q)}`, () => {
      assert.throws(
        () => parseSearchQuery(q),
        (error: unknown) => error instanceof ValidationError && says.test(error.message) && error.details?.[0]?.field === 'querystring.q',
      );
    });
  }
});

describe('search snippets', () => {
  it('marks every match by offsets in the original text, accents and all', () => {
    const s = snippetOf('The Café menu, the CAFE bar', ['cafe']);
    assert.equal(s.text, 'The Café menu, the CAFE bar');
    assert.deepEqual(
      s.highlights.map(({ start, length }) => s.text.slice(start, start + length)),
      ['Café', 'CAFE'],
    );
  });

  it('marks words by their start only, as the index finds them; CJK text anywhere', () => {
    const s = snippetOf('Catalog of login logs', ['log']);
    assert.deepEqual(
      s.highlights.map(({ start, length }) => s.text.slice(start, start + length)),
      ['log', 'log'],
    );
    assert.deepEqual(
      s.highlights.map(({ start }) => start),
      [11, 17],
    );
    const cjk = snippetOf('東京都の会議', ['京都']);
    assert.deepEqual(cjk.highlights, [{ start: 1, length: 2 }]);
  });

  it('cuts a long text around the first match, marking where it is cut', () => {
    const long = `${'lorem '.repeat(60)}needle ${'ipsum '.repeat(60)}`;
    const s = snippetOf(long, ['needle']);
    assert.ok(s.text.startsWith('…') && s.text.endsWith('…'));
    assert.ok(s.text.length <= 170, String(s.text.length));
    const [mark] = s.highlights;
    assert.equal(s.text.slice(mark!.start, mark!.start + mark!.length), 'needle');
  });

  it('never answers markup: text is as written', () => {
    const s = snippetOf('<b>bold</b> claim', ['claim']);
    assert.equal(s.text, '<b>bold</b> claim');
  });
});
