/**
 * Loading what a page shows: one resource or a paged list ({data, nextCursor}), with the
 * loading, failed and "not on this server yet" states rendered the same way everywhere.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, type Page } from './api.ts';

interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  reload: () => void;
}

const asApiError = (error: unknown) =>
  error instanceof ApiError ? error : new ApiError(0, 'console_error', 'The console could not read the answer.');

/** Loads once per change of `key` (the ids the loader depends on); a stale answer is dropped. */
export function useResource<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ key: string; data?: T; error?: ApiError }>({ key: '' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ key, data }),
      (error: unknown) => current && setState({ key, error: asApiError(error) }),
    );
    return () => {
      current = false;
    };
  }, [key, attempt]);
  const fresh = state.key === key;
  return {
    data: fresh ? state.data : undefined,
    error: fresh ? state.error : undefined,
    reload: useCallback(() => {
      setState({ key: '' });
      setAttempt((n) => n + 1);
    }, []),
  };
}

interface LoadedList<T> extends Loaded<T[]> {
  /** Loads the next page; absent on the last one. */
  more?: () => void;
  loadingMore: boolean;
  moreError: ApiError | undefined;
}

export function useList<T>(key: string, load: (cursor?: string) => Promise<Page<T>>): LoadedList<T> {
  const first = useResource(key, () => load());
  const [extra, setExtra] = useState<{ key: string; pages: Page<T>[] }>({ key, pages: [] });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<ApiError | undefined>();
  const pages = first.data ? [first.data, ...(extra.key === key ? extra.pages : [])] : [];
  const cursor = pages.at(-1)?.nextCursor ?? null;
  const more = async (after: string) => {
    setLoadingMore(true);
    setMoreError(undefined);
    try {
      const next = await load(after);
      setExtra((previous) => ({ key, pages: [...(previous.key === key ? previous.pages : []), next] }));
    } catch (error) {
      setMoreError(asApiError(error));
    } finally {
      setLoadingMore(false);
    }
  };
  return {
    data: first.data ? pages.flatMap((page) => page.data) : undefined,
    error: first.error,
    reload: () => {
      setExtra({ key, pages: [] });
      first.reload();
    },
    more: cursor ? () => void more(cursor) : undefined,
    loadingMore,
    moreError,
  };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      Loading {what}…
    </p>
  );
}

export function LoadFailed({ error, what, retry }: { error: ApiError; what: string; retry: () => void }) {
  if (error.isMissingRoute) {
    return (
      <p class="notice" role="status">
        Listing {what} is not available on this server yet.
      </p>
    );
  }
  return (
    <div class="alert" role="alert">
      <p>
        Could not load {what}: {error.message}
      </p>
      {error.requestId && <p class="muted">Request id: {error.requestId}</p>}
      <button type="button" onClick={retry}>
        Try again
      </button>
    </div>
  );
}

/** Renders a list's states, then `children(items)`; `empty` when there are none. */
export function ListView<T>({
  list,
  what,
  empty,
  children,
}: {
  list: LoadedList<T>;
  what: string;
  empty: string;
  children: (items: T[]) => ComponentChildren;
}) {
  if (list.error) return <LoadFailed error={list.error} what={what} retry={list.reload} />;
  if (!list.data) return <Loading what={what} />;
  if (list.data.length === 0) return <p class="muted">{empty}</p>;
  return (
    <>
      {children(list.data)}
      {list.moreError && <LoadFailed error={list.moreError} what={`more ${what}`} retry={list.more ?? list.reload} />}
      {list.more && !list.moreError && (
        <button type="button" onClick={list.more} aria-busy={list.loadingMore ? 'true' : undefined} disabled={list.loadingMore}>
          {list.loadingMore ? `Loading more ${what}…` : `Show more ${what}`}
        </button>
      )}
    </>
  );
}
