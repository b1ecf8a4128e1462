/**
 * The two buttons of a table row (Edit and Delete, or Rename, or Remove), each named after the
 * row for screen readers ("Delete web-1"), the destructive one marked as such.
 */
export function RowActions({
  name,
  onEdit,
  onRemove,
  edit = 'Edit',
  remove = 'Delete',
}: {
  /** How the row is called in the buttons' accessible names. */
  name: string;
  onEdit: () => void;
  onRemove: () => void;
  edit?: string;
  remove?: string;
}) {
  return (
    <div class="row compact">
      <button type="button" onClick={onEdit} aria-label={`${edit} ${name}`}>
        {edit}
      </button>
      <button type="button" class="danger" onClick={onRemove} aria-label={`${remove} ${name}`}>
        {remove}
      </button>
    </div>
  );
}
