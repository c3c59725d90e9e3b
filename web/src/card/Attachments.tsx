import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { ApiError, authHeaders, type Card, client, keepCsrf, type Member, messageOf, session, unwrap } from '../api.ts';
import { t } from '../strings.ts';
import { Cheers, type CheerTarget } from './Cheers.tsx';
import { FileButton, RenameInput } from './controls.tsx';
import { when } from './dates.ts';
import type { Attachment } from './queries.ts';

export interface Upload {
  key: number;
  name: string;
  loaded: number;
  total: number;
  cancel: () => void;
}

/**
 * Uploads through XMLHttpRequest: it reports the bytes sent (fetch cannot, for a request body, in
 * Chromium without HTTP/2) and aborts on Cancel. The file streams from disk; nothing waits on it.
 */
export function useUploads(path: string, onDone: () => Promise<unknown>, onError: (message: string) => void) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const next = useRef(0);
  const done = useRef(onDone);
  done.current = onDone;
  const failed = useRef(onError);
  failed.current = onError;

  const start = useCallback(
    (files: File[]) => {
      for (const file of files) {
        const key = next.current++;
        const request = new XMLHttpRequest();
        const update = (change: Partial<Upload>) => setUploads((all) => all.map((one) => (one.key === key ? { ...one, ...change } : one)));
        const finish = () => setUploads((all) => all.filter((one) => one.key !== key));
        request.upload.onprogress = (event) => update({ loaded: event.loaded, total: event.total || file.size });
        request.onload = () => {
          finish();
          let body: unknown;
          try {
            body = JSON.parse(request.responseText);
          } catch {
            body = undefined;
          }
          if (request.status >= 200 && request.status < 300) void done.current();
          else failed.current(t.uploadFailed(file.name, messageOf(body, String(request.status))));
        };
        request.onerror = () => {
          finish();
          failed.current(t.uploadFailed(file.name, t.networkError));
        };
        request.onabort = finish;
        request.open('POST', path);
        request.withCredentials = true;
        for (const [header, value] of Object.entries(authHeaders())) request.setRequestHeader(header, value);
        request.setRequestHeader('Accept', 'application/json');
        const form = new FormData();
        form.append('name', file.name || t.pastedFile);
        form.append('file', file, file.name || 'pasted');
        setUploads((all) => [...all, { key, name: file.name || t.pastedFile, loaded: 0, total: file.size, cancel: () => request.abort() }]);
        request.send(form);
      }
    },
    [path],
  );
  return { uploads, start };
}

/** Whether a file answer's bytes need the API key (an img or a link cannot send it; a cookie rides along). */
const needsKey = () => Boolean(session.apiKey);

async function fileBlob(url: string): Promise<Blob> {
  const response = await fetch(url, { headers: authHeaders(), credentials: 'same-origin' });
  keepCsrf(response);
  if (!response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`);
  return response.blob();
}

/**
 * An image attachment's preview: the browser scales it into a fixed box and loads it only when it
 * comes into view. The API serves no smaller rendition, so the file itself is the source.
 */
function Thumbnail({ attachment }: { attachment: Attachment }) {
  const [source, setSource] = useState<string | null>(needsKey() ? null : attachment.url);
  const box = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!needsKey()) return;
    // With an API key, read the bytes when the box comes into view, and show them as a blob.
    let url: string | null = null;
    let stop = false;
    const observer = new IntersectionObserver(async (entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      const blob = await fileBlob(attachment.url).catch(() => null);
      if (!blob || stop) return;
      url = URL.createObjectURL(blob);
      setSource(url);
    });
    if (box.current) observer.observe(box.current);
    return () => {
      stop = true;
      observer.disconnect();
      if (url) URL.revokeObjectURL(url);
    };
  }, [attachment.url]);
  return (
    <span ref={box} className="thumb">
      {source ? <img src={source} alt="" width={80} height={60} loading="lazy" decoding="async" /> : null}
    </span>
  );
}

export async function download(attachment: Attachment) {
  const blob = await fileBlob(attachment.url);
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = attachment.originalName || attachment.name;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The uploads under way: each with its progress and a Cancel button. */
export function UploadList({ uploads }: { uploads: Upload[] }) {
  if (!uploads.length) return null;
  return (
    <ul className="uploads">
      {uploads.map((upload) => (
        <li key={upload.key}>
          <span>{upload.name}</span>
          <progress max={Math.max(1, upload.total)} value={upload.loaded} aria-label={t.uploading(upload.name)} />
          <button type="button" onClick={upload.cancel}>
            {t.cancelUpload(upload.name)}
          </button>
        </li>
      ))}
    </ul>
  );
}

const sizeOf = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function Attachments(props: {
  card: Card;
  uploads: Upload[];
  start: (files: File[]) => void;
  people: Map<string, Member>;
  meId: string | undefined;
  run: (work: () => Promise<unknown>) => Promise<boolean>;
  refresh: () => Promise<unknown>;
  onError: (message: string) => void;
}) {
  const { card, run } = props;
  const [over, setOver] = useState(false);
  const [renaming, setRenaming] = useState<{ id: string; value: string } | null>(null);
  const id = useId();
  const attachments = card.attachments.filter((attachment) => !attachment.isDeleted);
  const hasFiles = (event: React.DragEvent) => [...event.dataTransfer.types].includes('Files');

  return (
    <section
      className={`attachments${over ? ' drop-over' : ''}`}
      aria-labelledby={`${id}-h`}
      onDragOver={(event) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        setOver(false);
        props.start([...event.dataTransfer.files]);
      }}
    >
      <div className="section-head">
        <h3 id={`${id}-h`}>{t.attachmentsTitle}</h3>
        <FileButton label={t.attachFile} onFiles={props.start} />
      </div>
      <p className="muted hint">{t.dropHint}</p>
      <UploadList uploads={props.uploads} />
      <ul className="attachment-list">
        {attachments.map((attachment) => {
          const target: CheerTarget = { kind: 'attachment', id: attachment._id, cardId: card._id };
          const attachmentId = attachment._id;
          return (
            <li key={attachment._id} className="attachment" data-item-id={attachment._id}>
              {attachment.type === 'file' && attachment.mimeType.startsWith('image/') ? (
                <Thumbnail attachment={attachment} />
              ) : (
                <span className="thumb file-kind" aria-hidden="true">
                  {attachment.type === 'link' ? '🔗' : (attachment.originalName.split('.').pop() ?? '').slice(0, 4).toUpperCase()}
                </span>
              )}
              <div className="attachment-body">
                {renaming?.id === attachment._id ? (
                  <RenameInput
                    label={t.attachmentName}
                    initial={renaming.value}
                    onCancel={() => setRenaming(null)}
                    onSave={async (name) => {
                      const renamed = await run(() =>
                        client
                          .PATCH('/api/v1/cards/{cardId}/attachments/{attachmentId}', { params: { path: { cardId: card._id, attachmentId } }, body: { name } })
                          .then(unwrap),
                      );
                      if (renamed) setRenaming(null);
                    }}
                  />
                ) : (
                  <span className="attachment-name">{attachment.name}</span>
                )}
                <span className="muted">
                  {attachment.type === 'file' ? sizeOf(attachment.size) : t.link} · {attachment.creator.fullName} · {when(attachment.createdAt)}
                </span>
                <div className="attachment-actions">
                  {attachment.type === 'link' ? (
                    <a href={attachment.url} target="_blank" rel="noopener noreferrer">
                      {t.openLink(attachment.name)}
                    </a>
                  ) : (
                    <button type="button" onClick={() => void download(attachment).catch((caught) => props.onError(String(caught)))}>
                      {t.download(attachment.name)}
                    </button>
                  )}
                  <button type="button" onClick={() => setRenaming({ id: attachment._id, value: attachment.name })}>
                    {t.renameNamed(attachment.name)}
                  </button>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      if (window.confirm(t.confirmDeleteAttachment(attachment.name)))
                        void run(() =>
                          client
                            .DELETE('/api/v1/cards/{cardId}/attachments/{attachmentId}', { params: { path: { cardId: card._id, attachmentId } } })
                            .then(unwrap),
                        );
                    }}
                  >
                    {t.deleteNamed(attachment.name)}
                  </button>
                </div>
                <Cheers
                  target={target}
                  what={attachment.name}
                  cheers={attachment.cheers}
                  people={props.people}
                  meId={props.meId}
                  onChange={props.refresh}
                  onError={props.onError}
                />
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
