import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { client, problem, unwrap } from '../../api.ts';
import { ToolDialog, type ToolMessage } from '../dialogs.tsx';
import { boardTemplatesText as b } from './strings.ts';
import '../rules/rules.css';
import '../settings/settings.css';
import './templates.css';

type Made = Awaited<ReturnType<typeof makeTemplate>>;

async function makeTemplate(boardId: string, name: string, description: string) {
  return unwrap(await client.POST('/api/v1/boards/{boardId}/template', { params: { path: { boardId } }, body: { name, description } }));
}

/**
 * "Make a template from this board" (the board menu): names the template, saves the board's lists,
 * labels, fields and rules as one of its team's templates, then says what it holds and what it
 * could not keep.
 */
export default function MakeBoardTemplateDialog(props: { boardId: string; boardName: string; onClose: () => void }) {
  const [name, setName] = useState(props.boardName);
  const [description, setDescription] = useState('');
  const [message, setMessage] = useState<ToolMessage>(null);
  const [made, setMade] = useState<Made | null>(null);
  const ids = useId();
  const save = useMutation({
    mutationFn: () => makeTemplate(props.boardId, name.trim(), description),
    onSuccess: (answer) => {
      setMade(answer);
      setMessage({ kind: 'info', text: b.saved(answer.template.name) });
    },
    onError: (caught) => setMessage({ kind: 'error', text: b.refused(problem(caught)) }),
  });
  const content = made?.template.content;
  return (
    <ToolDialog label={b.dialogLabel(props.boardName)} title={b.title} closeLabel={b.close} intro={b.intro} message={message} onClose={props.onClose}>
      {content && made ? (
        <section className="template-made" aria-labelledby={`${ids}-holds`}>
          <h3 id={`${ids}-holds`}>{b.holds}</h3>
          <dl className="template-counts">
            {(
              [
                [b.lists, content.lists.length],
                [b.labels, content.labels.length],
                [b.fields, content.customFields.length],
                [b.rules, content.rules.length],
              ] as const
            ).map(([term, count]) => (
              <div key={term}>
                <dt>{term}</dt>
                <dd>{count}</dd>
              </div>
            ))}
          </dl>
          {made.leftOut.rules.length ? (
            <ul className="notice notice-warn template-left-out">
              {made.leftOut.rules.map((rule) => (
                <li key={rule.name}>{b.leftOut[rule.why](rule.name)}</li>
              ))}
            </ul>
          ) : null}
          <button type="button" className="primary template-done" onClick={props.onClose} autoFocus>
            {b.close}
          </button>
        </section>
      ) : (
        <form
          className="board-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (name.trim()) save.mutate();
          }}
        >
          <label htmlFor={`${ids}-name`}>{b.name}</label>
          <input id={`${ids}-name`} value={name} onChange={(event) => setName(event.target.value)} required maxLength={512} autoFocus />
          <label htmlFor={`${ids}-description`}>{b.description}</label>
          <textarea id={`${ids}-description`} value={description} onChange={(event) => setDescription(event.target.value)} rows={3} />
          <div className="composer-actions">
            <button type="submit" className="primary" disabled={save.isPending || !name.trim()}>
              {save.isPending ? b.saving : b.save}
            </button>
          </div>
        </form>
      )}
    </ToolDialog>
  );
}
