import { Download } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { authHeaders } from '../../api.ts';
import { currentLocale } from '../../i18n/messages.ts';
import { settingsText as s } from './strings.ts';

type ExportFormat = 'json' | 'csv' | 'zip';

/** The export API's query for each choice (docs/api.md, "Board export"). */
const QUERY: Record<ExportFormat, string> = { json: '', csv: '?format=csv', zip: '?files=true' };

/** Bytes in words of the page's language: "840 kB", "12.5 MB". */
function size(bytes: number): string {
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1000, 'kilobyte'] : [bytes / 1_000_000, 'megabyte'];
  return new Intl.NumberFormat(currentLocale(), { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 }).format(value);
}

/** The file name the answer's `Content-Disposition` gives (`filename*=UTF-8''…`). */
function fileName(response: Response, fallback: string): string {
  const header = response.headers.get('Content-Disposition') ?? '';
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header)?.[1];
  try {
    return encoded ? decodeURIComponent(encoded) : fallback;
  } catch {
    return fallback;
  }
}

/** Hands `blob` to the browser as a download named `name`. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

type State = { kind: 'idle' } | { kind: 'running'; received: number } | { kind: 'done'; name: string; bytes: number } | { kind: 'failed'; text: string };

/**
 * The board menu's Export: the documented JSON document, a CSV of the cards, or a zip with every
 * attached file (the export API, streamed by the server). The answer is read here as it comes, so a
 * large board shows how much has arrived, and can be cancelled; then it is saved as a file.
 */
export function ExportPanel({ boardId }: { boardId: string }) {
  const [format, setFormat] = useState<ExportFormat>('json');
  const [state, setState] = useState<State>({ kind: 'idle' });
  const running = useRef<AbortController | null>(null);
  const ids = useId();
  useEffect(() => () => running.current?.abort(), []);

  async function start() {
    const stop = new AbortController();
    running.current = stop;
    setState({ kind: 'running', received: 0 });
    try {
      const response = await fetch(`/api/v1/boards/${boardId}/export${QUERY[format]}`, {
        headers: authHeaders(),
        credentials: 'same-origin',
        cache: 'no-store',
        signal: stop.signal,
      });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => null)) as { message?: string } | null;
        throw new Error(body?.message ?? `${response.status} ${response.statusText}`);
      }
      const parts: Uint8Array[] = [];
      let received = 0;
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        received += value.byteLength;
        setState({ kind: 'running', received });
      }
      const name = fileName(response, `board.${format}`);
      save(new Blob(parts as BlobPart[], { type: response.headers.get('Content-Type') ?? 'application/octet-stream' }), name);
      setState({ kind: 'done', name, bytes: received });
    } catch (error) {
      setState(stop.signal.aborted ? { kind: 'idle' } : { kind: 'failed', text: s.exportFailed(error instanceof Error ? error.message : String(error)) });
    } finally {
      running.current = null;
    }
  }

  return (
    <div className="export-panel">
      <fieldset disabled={state.kind === 'running'}>
        <legend>{s.exportFormat}</legend>
        {(['json', 'csv', 'zip'] as const).map((one) => (
          <label key={one} className="export-choice">
            <input type="radio" name={`${ids}-format`} value={one} checked={format === one} onChange={() => setFormat(one)} />
            <span>
              <strong>{s.exportNames[one]}</strong>
              <span className="muted">{s.exportHints[one]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {state.kind === 'running' ? (
        <div className="export-progress">
          <progress aria-label={s.exporting} />
          <p role="status">{s.exportReceived(size(state.received))}</p>
          <button type="button" onClick={() => running.current?.abort()}>
            {s.cancelExport}
          </button>
        </div>
      ) : (
        <button type="button" className="primary" onClick={() => void start()}>
          <Download size={16} aria-hidden="true" /> {s.exportAction}
        </button>
      )}
      {state.kind === 'done' ? <p role="status">{s.exportDone(state.name, size(state.bytes))}</p> : null}
      {state.kind === 'failed' ? (
        <p role="alert" className="error">
          {state.text}
        </p>
      ) : null}
    </div>
  );
}
