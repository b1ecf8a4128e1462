/**
 * The question a navigation away from unsaved work waits for (leave-guard.ts): what would be
 * lost, Cancel to stay, or leave without saving. Mounted once, in the signed-in shell.
 */
import { ConfirmDialog } from './confirm-dialog.tsx';
import { unsavedWork, usePendingLeave } from './leave-guard.ts';

export function LeaveDialog() {
  const [leave, dismiss] = usePendingLeave();
  if (!leave) return null;
  return (
    <ConfirmDialog title="Leave without saving?" confirmLabel="Leave without saving" onClose={dismiss} onConfirm={async () => leave()}>
      {unsavedWork().map((line) => (
        <p key={line}>{line}</p>
      ))}
      <p>Cancel to stay and save first.</p>
    </ConfirmDialog>
  );
}
