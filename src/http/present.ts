/** Row -> API JSON helpers: timestamps are ISO-8601 with milliseconds. */
export const iso = (date: Date): string => date.toISOString();
export const isoOrNull = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

export function timestampsOf(row: { createdAt: Date; updatedAt: Date }) {
  return { createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
}
