/**
 * Resource charts of a server (CPU, memory, disk, load) or of the containers of a service or an
 * environment (CPU, memory, network, block I/O; one line per container). A range from the stored
 * series, and while the page is open new points arrive live; watching makes the server's daemon
 * sample every 10 s instead of every minute.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { SelectField } from '../forms.tsx';
import { subscribeLive } from '../live-subscription.ts';
import { type ChartLine, type Format, formatBytes, formatNumber, formatPercent, formatRate, LineChart } from './charts.tsx';
import type { LivePoint, MetricsFrame } from '../../../src/contract/live.ts';
import { type MetricPoint, type MetricSeries, type MetricTarget, observeApi, replicaLabel } from './observe-api.ts';

const RANGES = [
  { value: '1h', label: 'Last hour', span: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', span: 86_400_000 },
  { value: '7d', label: 'Last 7 days', span: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', span: 30 * 86_400_000 },
] as const;
type Range = (typeof RANGES)[number]['value'];


interface ChartSpec {
  title: string;
  format: Format;
  /** One line per series, or several per series (network in and out). */
  lines: (series: MetricSeries) => ChartLine[];
  max?: (series: MetricSeries[]) => number | undefined;
}

const at = (point: MetricPoint) => Date.parse(point.at);
const line = (label: string, series: MetricSeries, value: (point: MetricPoint) => number | null): ChartLine => ({ label, points: series.points.map((point) => [at(point), value(point)]) });
const last = (series: MetricSeries, value: (point: MetricPoint) => number | null) => [...series.points].reverse().map(value).find((v) => v !== null) ?? undefined;

const SERVER_CHARTS: ChartSpec[] = [
  { title: 'CPU (% of all cores)', format: formatPercent, max: () => 100, lines: (s) => [line('CPU', s, (p) => (p.cpu === null || !p.cpuCount ? null : (p.cpu / p.cpuCount) * 100))] },
  { title: 'Memory in use', format: formatBytes, max: ([s]) => (s ? last(s, (p) => p.memoryLimit) : undefined), lines: (s) => [line('used', s, (p) => p.memory)] },
  { title: 'Disk in use (Docker data)', format: formatBytes, max: ([s]) => (s ? last(s, (p) => p.diskTotal) : undefined), lines: (s) => [line('used', s, (p) => p.diskUsed)] },
  { title: 'Load average', format: formatNumber, lines: (s) => [line('1 min', s, (p) => p.load1), line('5 min', s, (p) => p.load5), line('15 min', s, (p) => p.load15)] },
];

const CONTAINER_CHARTS: ChartSpec[] = [
  { title: 'CPU (% of one core)', format: formatPercent, lines: (s) => [line(s.name, s, (p) => (p.cpu === null ? null : p.cpu * 100))] },
  { title: 'Memory', format: formatBytes, lines: (s) => [line(s.name, s, (p) => p.memory)] },
  { title: 'Network (received, sent)', format: formatRate, lines: (s) => [line(`${s.name} in`, s, (p) => p.netRx), line(`${s.name} out`, s, (p) => p.netTx)] },
  { title: 'Block I/O (read, written)', format: formatRate, lines: (s) => [line(`${s.name} read`, s, (p) => p.blockRead), line(`${s.name} write`, s, (p) => p.blockWrite)] },
];

/** Appends live points to their series (by server or container row), dropping what left the range. */
function withLivePoints(series: MetricSeries[], points: LivePoint[], since: number): MetricSeries[] {
  return series.map((one) => {
    const added = points.filter((point) => (one.serverId ? point.serverId === one.serverId : point.containerId === one.containerId));
    if (added.length === 0) return one;
    return { ...one, points: [...one.points, ...added].filter((point) => at(point) >= since) };
  });
}

/** `serviceNames` (an environment's services by id) names each container line by service and replica. */
export function MetricsPanel({ target, kind, serviceNames }: { target: MetricTarget; kind: 'server' | 'containers'; serviceNames?: Record<string, string> }) {
  const [range, setRange] = useState<Range>('1h');
  const [state, setState] = useState<{ series: MetricSeries[]; since: number; until: number; error?: string; loaded: boolean }>({ series: [], since: 0, until: 0, loaded: false });
  const key = JSON.stringify(target);
  useEffect(() => {
    const span = RANGES.find((choice) => choice.value === range)!.span;
    const until = Date.now();
    const since = until - span;
    let current = true;
    setState({ series: [], since, until, loaded: false });
    observeApi.metrics(target, new Date(since).toISOString(), new Date(until).toISOString()).then(
      (answer) => current && setState({ series: answer.series, since, until, loaded: true }),
      (error: unknown) => current && setState({ series: [], since, until, loaded: true, error: error instanceof ApiError ? error.message : String(error) }),
    );
    // New points move the window on (the hour view stays the last hour).
    const stop = subscribeLive<MetricsFrame>(
      { topic: 'metrics', ...target },
      (frame) => {
        if (frame.type !== 'metrics') return;
        setState((previous) => {
          const now = Date.now();
          const movedSince = now - span;
          return { ...previous, since: movedSince, until: now, series: withLivePoints(previous.series, frame.points, movedSince) };
        });
      },
      () => {},
    );
    return () => {
      current = false;
      stop();
    };
  }, [key, range]);

  const charts = kind === 'server' ? SERVER_CHARTS : CONTAINER_CHARTS;
  const series = state.series.map((one) => (one.serviceId && one.ordinal !== null ? { ...one, name: replicaLabel(one.serviceId, one.ordinal, one.name, serviceNames) } : one));
  return (
    <section aria-labelledby="metrics-heading" class="metrics">
      <div class="section-header">
        <h2 id="metrics-heading">Resources</h2>
        <SelectField inline id="metrics-range" name="range" label="Range" choices={RANGES} selected={range} onChange={(value) => setRange(value as Range)} />
      </div>
      {state.error && (
        <div class="alert" role="alert">
          <p>Could not load the resource history: {state.error}</p>
        </div>
      )}
      {!state.loaded ? (
        <p class="loading" role="status">
          <span class="spinner" aria-hidden="true" />
          Loading the resource history…
        </p>
      ) : state.series.length === 0 ? (
        <p class="muted">No samples yet: the server's daemon sends them every minute (every 10 seconds while this page is open).</p>
      ) : (
        <div class="charts">
          {charts.map((chart) => (
            <LineChart
              key={chart.title}
              title={chart.title}
              lines={series.flatMap(chart.lines)}
              since={state.since}
              until={state.until}
              format={chart.format}
              max={chart.max?.(series)}
            />
          ))}
        </div>
      )}
    </section>
  );
}
