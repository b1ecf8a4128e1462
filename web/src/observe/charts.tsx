/**
 * Small line charts drawn here as SVG (no chart library: the console stays offline and light).
 * Each chart is an image with a text alternative: its title and the latest value of each line;
 * a gap in the data (no sample) is a gap in the line, never a made-up value.
 */
const WIDTH = 320;
const HEIGHT = 110;
const PAD = { left: 44, right: 8, top: 8, bottom: 18 };
/** Up to this many samples in a chart, each is drawn as a dot too. */
const SPARSE = 60;
const COLORS = ['#1f5fbf', '#b35900', '#1a7f37', '#8250df', '#b42318', '#0a7f8a'];

export interface ChartLine {
  label: string;
  /** [epoch ms, value or null] in time order. */
  points: [number, number | null][];
}

export type Format = (value: number) => string;

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export const formatBytes: Format = (value) => {
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${UNITS[unit]}`;
};
export const formatRate: Format = (value) => `${formatBytes(value)}/s`;
export const formatPercent: Format = (value) => `${value >= 10 ? Math.round(value) : value.toFixed(1)}%`;
export const formatNumber: Format = (value) => (value >= 10 ? value.toFixed(0) : value.toFixed(2));

/** The path of one line, broken where a value is missing. */
function pathOf(points: [number, number | null][], x: (t: number) => number, y: (v: number) => number): string {
  let path = '';
  let pen = false;
  for (const [t, value] of points) {
    if (value === null) {
      pen = false;
      continue;
    }
    path += `${pen ? 'L' : 'M'}${x(t).toFixed(1)},${y(value).toFixed(1)}`;
    pen = true;
  }
  return path;
}

export function LineChart({ title, lines, since, until, format, max }: { title: string; lines: ChartLine[]; since: number; until: number; format: Format; max?: number }) {
  const values = lines.flatMap((line) => line.points.map(([, value]) => value).filter((value): value is number => value !== null));
  const top = Math.max(max ?? 0, ...values, 0) * (max === undefined ? 1.1 : 1) || 1;
  const x = (t: number) => PAD.left + ((t - since) / Math.max(1, until - since)) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => HEIGHT - PAD.bottom - (v / top) * (HEIGHT - PAD.top - PAD.bottom);
  const latest = lines.map((line) => {
    const last = [...line.points].reverse().find(([, value]) => value !== null);
    return `${line.label} ${last ? format(last[1]!) : 'no data'}`;
  });
  const description = values.length === 0 ? `${title}: no samples in this range` : `${title}: ${latest.join(', ')}`;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={description}>
        <line x1={PAD.left} y1={HEIGHT - PAD.bottom} x2={WIDTH - PAD.right} y2={HEIGHT - PAD.bottom} class="chart-axis" />
        <text x={PAD.left - 4} y={PAD.top + 8} class="chart-label" text-anchor="end">
          {format(top)}
        </text>
        <text x={PAD.left - 4} y={HEIGHT - PAD.bottom} class="chart-label" text-anchor="end">
          0
        </text>
        <text x={PAD.left} y={HEIGHT - 4} class="chart-label">
          {new Date(since).toLocaleString()}
        </text>
        <text x={WIDTH - PAD.right} y={HEIGHT - 4} class="chart-label" text-anchor="end">
          {new Date(until).toLocaleTimeString()}
        </text>
        {lines.map((line, index) => (
          <path key={line.label} d={pathOf(line.points, x, y)} fill="none" stroke={COLORS[index % COLORS.length]} stroke-width="1.5" />
        ))}
        {/* Few samples (a page opened just after a deploy): each is a dot, so a lone one shows. */}
        {values.length <= SPARSE &&
          lines.flatMap((line, index) =>
            line.points
              .filter((point): point is [number, number] => point[1] !== null)
              .map(([t, value]) => <circle key={`${line.label}-${t}`} cx={x(t)} cy={y(value)} r="1.8" fill={COLORS[index % COLORS.length]} />),
          )}
      </svg>
      {values.length === 0 ? (
        <p class="muted chart-empty">No samples in this range yet.</p>
      ) : (
        <ul class="chart-legend">
          {lines.map((line, index) => (
            <li key={line.label}>
              <span class="chart-swatch" style={{ background: COLORS[index % COLORS.length] }} aria-hidden="true" />
              {latest[index]}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
