import { useConnection } from './connection.ts';
import './offline.css';
import { offlineText } from './strings.ts';
import { reloadIntoUpdate, useUpdateReady } from './worker.ts';

/** The slim banner of a signed-in page while it is offline: what it shows is what was kept, and writes are refused. */
export function OfflineBanner() {
  const connection = useConnection();
  if (connection === 'online') return null;
  return (
    <p className="banner offline-banner" role="status">
      {connection === 'offline' ? offlineText.offlineBanner : offlineText.unreachableBanner}
    </p>
  );
}

/** "A new version is ready — Reload", on every page, once a new version waits. */
export function UpdatePrompt() {
  const ready = useUpdateReady();
  if (!ready) return null;
  return (
    <div className="update-prompt" role="status">
      <span>{offlineText.updateReady}</span>
      <button type="button" className="primary" onClick={reloadIntoUpdate}>
        {offlineText.reload}
      </button>
    </div>
  );
}
