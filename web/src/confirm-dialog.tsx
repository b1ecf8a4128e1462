/**
 * A modal confirmation for destructive actions: a native <dialog> (focus is trapped and Escape
 * cancels), the consequence spelled out, and the action's own verb on the confirm button. The
 * action's error shows inside the dialog, which stays open so the user can read it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { FormAlert, type FormProblem } from './forms.tsx';

interface ConfirmDialogProps {
  title: string;
  confirmLabel: string;
  children: ComponentChildren;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  /** Turns an API error into a clearer message (a 409 has_dependents, ...). */
  explain?: (error: ApiError) => string | undefined;
}

export function ConfirmDialog({ title, confirmLabel, children, onConfirm, onClose, explain }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);

  const confirm = async () => {
    if (busy) return;
    setBusy(true);
    setProblem(null);
    try {
      await onConfirm();
      onClose();
    } catch (error) {
      if (error instanceof ApiError) setProblem({ message: explain?.(error) ?? error.message, requestId: error.requestId });
      else setProblem({ message: String(error) });
      setBusy(false);
    }
  };

  return (
    <dialog ref={dialog} class="confirm-dialog" aria-labelledby={headingId} onClose={onClose}>
      <h2 id={headingId}>{title}</h2>
      {children}
      <FormAlert problem={problem} />
      <div class="row dialog-actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => void confirm()} aria-busy={busy ? 'true' : undefined}>
          {busy ? `${confirmLabel}…` : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** Shows `text` with a button that copies it; the text stays selectable for manual copying. */
export function CopyableCommand({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div class="copyable">
      <pre aria-label={label} tabIndex={0}>
        <code>{text}</code>
      </pre>
      <div class="row">
        <button type="button" onClick={() => void copy()}>
          Copy {label.toLowerCase()}
        </button>
        <span role="status" class="muted">
          {copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copying is blocked here: select the text and copy it.' : ''}
        </span>
      </div>
    </div>
  );
}
