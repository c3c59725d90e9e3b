import { useId, useState } from 'react';
import { factorText } from './factor-strings.ts';

/** Ten recovery codes shown this once: a list to copy or download as a text file, and a button that forgets them. */
export function RecoveryCodes({ codes, onDone, doneLabel }: { codes: string[]; onDone: () => void; doneLabel?: string }) {
  const id = useId();
  const [copy, setCopy] = useState<string | null>(null);
  const text = `${codes.join('\n')}\n`;
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'taskboard-recovery-codes.txt';
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <div className="recovery-codes" role="group" aria-labelledby={id}>
      <h3 id={id}>{factorText.recoveryTitle}</h3>
      <p className="muted">{factorText.recoveryHint}</p>
      <ul className="recovery-code-list">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="inline-form">
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(text).then(
              () => setCopy(factorText.codesCopied),
              () => setCopy(factorText.copyFailed),
            )
          }
        >
          {factorText.copyCodes}
        </button>
        <button type="button" onClick={download}>
          {factorText.downloadCodes}
        </button>
        <button type="button" className="primary" onClick={onDone}>
          {doneLabel ?? factorText.savedThem}
        </button>
      </div>
      <p role="status" className="muted">
        {copy}
      </p>
    </div>
  );
}

/** The QR code of a new authenticator secret, and the secret to type where an app cannot scan. */
export function ScanCode({ qrCode, secret }: { qrCode: string; secret: string }) {
  return (
    <div className="scan-code">
      <p>{factorText.scanIntro}</p>
      <img className="scan-code-image" src={qrCode} alt={factorText.qrAlt} width={192} height={192} />
      <p className="muted">{factorText.cantScan}</p>
      <code className="scan-code-secret">{secret.replace(/(.{4})/g, '$1 ').trim()}</code>
    </div>
  );
}
