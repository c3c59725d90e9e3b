import * as Toast from '@radix-ui/react-toast';
import { X } from 'lucide-react';
import { createPortal } from 'react-dom';
import { t } from '../strings.ts';
import { dismissToast, UNDO_WINDOW_MS, useToasts } from './toasts.ts';
import { useTopModal } from './topLayer.ts';
import './ui.css';

/**
 * The toasts, on Radix UI's Toast: loaded with the first toast, outside the board's first load. While
 * a modal is open they show inside it, where its inert page behind does not hold them out of reach.
 */
export default function ToastList() {
  const shown = useToasts();
  const modal = useTopModal();
  const viewport = <Toast.Viewport className="ui-toast-viewport" />;
  return (
    <Toast.Provider duration={UNDO_WINDOW_MS} label={t.notifications}>
      {shown.map((toast) => (
        <Toast.Root
          key={toast.id}
          className={`ui-toast ui-toast-${toast.kind}`}
          type={toast.kind === 'error' ? 'foreground' : 'background'}
          onOpenChange={(open) => !open && dismissToast(toast.id)}
        >
          <Toast.Description className="ui-toast-text">{toast.text}</Toast.Description>
          {toast.action ? (
            <Toast.Action
              className="ui-toast-action"
              altText={toast.action.label}
              onClick={() => {
                toast.action?.run();
                dismissToast(toast.id, true);
              }}
            >
              {toast.action.label}
            </Toast.Action>
          ) : null}
          <Toast.Close className="ui-toast-close" aria-label={t.close}>
            <X size={16} aria-hidden="true" />
          </Toast.Close>
        </Toast.Root>
      ))}
      {modal ? createPortal(viewport, modal) : viewport}
    </Toast.Provider>
  );
}
