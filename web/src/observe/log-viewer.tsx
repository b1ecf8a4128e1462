/**
 * Container logs of a container, a service or an environment: live (the last lines, then each new
 * one over /ws/client/v1) or a time range from the retained history, filtered by text and stream,
 * paused and resumed, downloaded. Live lines are filtered here; a time range is filtered by the
 * server (so a search reaches the whole range). At most MAX_SHOWN lines are kept in the page.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { type Choice, SelectField } from '../forms.tsx';
import { type LiveConnection, subscribeLive } from '../live-subscription.ts';
import type { LogsFrame } from '../../../src/contract/live.ts';
import { type LogFilter, type LogLine, type LogTarget, logDownloadUrl, narrowedTarget, observeApi, replicaLabel } from './observe-api.ts';

const MAX_SHOWN = 2_000;
const LIVE_TAIL = 200;
const RANGES = [
  { value: 'live', label: 'Live' },
  { value: '15m', label: 'Last 15 minutes' },
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
] as const;
type Range = (typeof RANGES)[number]['value'];
const RANGE_MS: Record<Exclude<Range, 'live'>, number> = { '15m': 900_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };


const CONNECTION_TEXT: Record<LiveConnection, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Live updates interrupted; reconnecting…',
  refused: 'Live logs are not available',
};

const keepLast = (lines: LogLine[]) => (lines.length > MAX_SHOWN ? lines.slice(-MAX_SHOWN) : lines);

/** A line of the console's own: lines this page did not get because it fell behind. */
const behindMarker = (count: number, at: string): LogLine => ({
  at,
  stream: 'panel',
  text: `[console] ${count} line${count === 1 ? '' : 's'} not shown here (this page fell behind); the history has them`,
  serviceId: '',
  containerId: null,
  ordinal: 0,
  containerName: '',
});

function matches(line: LogLine, filter: LogFilter): boolean {
  if (filter.stream && line.stream !== filter.stream && line.stream !== 'panel') return false;
  return !filter.q || line.text.toLowerCase().includes(filter.q.toLowerCase());
}

/** Live lines of the target; while `paused`, new lines wait (and are counted) instead of showing. */
function useLiveLines(target: LogTarget, enabled: boolean, paused: boolean) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [waiting, setWaiting] = useState<LogLine[]>([]);
  const [connection, setConnection] = useState<{ state: LiveConnection; problem?: string }>({ state: 'connecting' });
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const key = JSON.stringify(target);
  useEffect(() => {
    if (!enabled) return;
    setLines([]);
    setWaiting([]);
    return subscribeLive<LogsFrame>(
      { topic: 'logs', ...target, tail: LIVE_TAIL },
      (frame) => {
        if (frame.type === 'subscribed') {
          setLines(keepLast(frame.lines));
          setWaiting([]);
          return;
        }
        const arrived = frame.dropped ? [behindMarker(frame.dropped, frame.lines[0]?.at ?? new Date().toISOString()), ...frame.lines] : frame.lines;
        if (pausedRef.current) setWaiting((previous) => keepLast([...previous, ...arrived]));
        else setLines((previous) => keepLast([...previous, ...arrived]));
      },
      (state, problem) => setConnection({ state, problem }),
    );
  }, [key, enabled]);
  const resume = () => {
    setLines((previous) => keepLast([...previous, ...waiting]));
    setWaiting([]);
  };
  return { lines, waiting: waiting.length, connection, resume };
}

/** A time range of the history, filtered by the server, with older pages on demand. */
function useHistory(target: LogTarget, range: Range, filter: LogFilter) {
  const [state, setState] = useState<{ lines: LogLine[]; cursor: string | null; loading: boolean; error?: string }>({ lines: [], cursor: null, loading: false });
  const request = useMemo(() => {
    if (range === 'live') return null;
    const until = new Date();
    return { since: new Date(until.getTime() - RANGE_MS[range]).toISOString(), until: until.toISOString(), stream: filter.stream, q: filter.q };
  }, [range, filter.stream, filter.q, JSON.stringify(target)]);
  const load = async (cursor?: string) => {
    if (!request) return;
    setState((previous) => ({ ...previous, loading: true, error: undefined }));
    try {
      const page = await observeApi.logs(target, { ...request, limit: 1000, cursor });
      setState((previous) => ({ lines: keepLast(cursor ? [...page.data, ...previous.lines] : page.data), cursor: page.nextCursor, loading: false }));
    } catch (error) {
      setState((previous) => ({ ...previous, loading: false, error: error instanceof ApiError ? error.message : String(error) }));
    }
  };
  useEffect(() => {
    if (!request) return;
    // Typing in the filter asks the server once the typing pauses.
    const timer = setTimeout(() => void load(), 250);
    return () => clearTimeout(timer);
  }, [request]);
  return { ...state, request, older: state.cursor ? () => void load(state.cursor!) : undefined };
}

function formatTime(at: string, withDate: boolean): string {
  const date = new Date(at);
  return withDate ? date.toLocaleString() : date.toLocaleTimeString();
}

/**
 * `serviceNames` (an environment's services by id) makes each line say which service and replica
 * it came from; without it a line says only its replica (`#2`). `replicas` (a service's container
 * rows, replicaChoices) offers to narrow the view, live and ranged, to one of them; a chosen replica
 * that is no longer offered falls back to every replica.
 */
export function LogViewer({ target: whole, serviceNames, replicas = [] }: { target: LogTarget; serviceNames?: Record<string, string>; replicas?: readonly Choice[] }) {
  const [replica, setReplica] = useState('');
  const target = narrowedTarget(whole, replica, replicas);
  const chosen = 'containerId' in target ? target.containerId : '';
  const [range, setRange] = useState<Range>('live');
  const [q, setQ] = useState('');
  const [stream, setStream] = useState<'' | 'stdout' | 'stderr'>('');
  const [paused, setPaused] = useState(false);
  const [follow, setFollow] = useState(true);
  const filter: LogFilter = { q: q.trim() || undefined, stream: stream || undefined };
  const live = useLiveLines(target, range === 'live', paused);
  const history = useHistory(target, range, filter);
  const listRef = useRef<HTMLOListElement>(null);
  const isLive = range === 'live';
  const shown = isLive ? live.lines.filter((line) => matches(line, filter)) : history.lines;

  useEffect(() => {
    const list = listRef.current;
    if (list && isLive && follow && !paused) list.scrollTop = list.scrollHeight;
  }, [shown.length, isLive, follow, paused]);

  const togglePause = () => {
    if (paused) live.resume();
    setPaused(!paused);
  };
  const download = logDownloadUrl(target, history.request ?? filter);
  const status = isLive
    ? paused
      ? `Paused: ${live.waiting} new line${live.waiting === 1 ? '' : 's'} waiting`
      : `${CONNECTION_TEXT[live.connection.state]}${live.connection.problem ? `: ${live.connection.problem}` : ''}`
    : history.loading
      ? 'Loading…'
      : `${history.lines.length} line${history.lines.length === 1 ? '' : 's'} in this range${history.cursor ? ' (older ones available)' : ''}`;

  return (
    <section aria-labelledby="logs-heading" class="logs">
      <div class="section-header">
        <h2 id="logs-heading">Logs</h2>
        <p class="muted" role="status">
          {status}
        </p>
      </div>
      <div class="toolbar">
        <SelectField inline id="log-range" name="range" label="Show" choices={RANGES} selected={range} onChange={(value) => setRange(value as Range)} />
        {(replicas.length > 1 || chosen) && (
          <SelectField inline id="log-replica" name="replica" label="Replica" choices={[{ value: '', label: 'Every replica' }, ...replicas]} selected={chosen} onChange={setReplica} />
        )}
        <div class="field inline">
          <label for="log-filter">Filter</label>
          <input id="log-filter" type="search" value={q} placeholder="Text the line contains" onInput={(event) => setQ(event.currentTarget.value)} spellcheck={false} />
        </div>
        <div class="field inline">
          <label for="log-stream">Stream</label>
          <select id="log-stream" value={stream} onChange={(event) => setStream(event.currentTarget.value as typeof stream)}>
            <option value="">stdout and stderr</option>
            <option value="stdout">stdout</option>
            <option value="stderr">stderr</option>
          </select>
        </div>
        {isLive && (
          <>
            <button type="button" onClick={togglePause} aria-pressed={paused ? 'true' : 'false'}>
              {paused ? 'Resume' : 'Pause'}
            </button>
            <label class="check">
              <input type="checkbox" checked={follow} onChange={(event) => setFollow(event.currentTarget.checked)} />
              Follow
            </label>
          </>
        )}
        <a class="button" href={download} download>
          Download
        </a>
      </div>
      {!isLive && history.error && (
        <div class="alert" role="alert">
          <p>Could not load the logs: {history.error}</p>
        </div>
      )}
      {!isLive && history.older && (
        <button type="button" onClick={history.older} disabled={history.loading}>
          Show older lines
        </button>
      )}
      {shown.length === 0 ? (
        <p class="muted log-empty">
          {filter.q || filter.stream ? 'No lines match.' : isLive ? 'No lines yet: they appear as the containers write them.' : 'No lines in this range.'}
        </p>
      ) : (
        <ol class="log-lines" ref={listRef} tabIndex={0} aria-label="Log lines">
          {shown.map((line, index) => (
            <li key={`${line.at}-${index}`} data-log-line class={`log-${line.stream}`}>
              <time dateTime={line.at}>{formatTime(line.at, range === '24h' || range === '7d')}</time>
              {line.containerName ? (
                <span class="log-source" title={line.containerName}>
                  {replicaLabel(line.serviceId, line.ordinal, line.containerName, serviceNames)}
                </span>
              ) : null}
              <span class="log-text">{line.text}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
