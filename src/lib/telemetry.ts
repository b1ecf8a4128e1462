/**
 * Counters of the control plane's own HTTP traffic for GET /metrics (Prometheus text format).
 * Labels are the method, the route pattern Elysia matched (`/api/client/v1/projects/:id`, never
 * the concrete path: no tenant ids, and a bounded set) and the status; unmatched paths share one
 * label so random URLs cannot grow it.
 */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export class HttpTelemetry {
  private readonly requests = new Map<string, number>();
  private readonly durations = new Map<string, Histogram>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const requestKey = `${method}\u0000${route}\u0000${status}`;
    this.requests.set(requestKey, (this.requests.get(requestKey) ?? 0) + 1);
    const durationKey = `${method}\u0000${route}`;
    let histogram = this.durations.get(durationKey);
    if (!histogram) this.durations.set(durationKey, (histogram = { counts: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 }));
    DURATION_BUCKETS.forEach((bound, index) => {
      if (seconds <= bound) histogram.counts[index]!++;
    });
    histogram.sum += seconds;
    histogram.count++;
  }

  /** The two families in exposition format. */
  render(): string {
    const lines = ['# HELP panel_http_requests_total HTTP requests answered, by method, route pattern and status.', '# TYPE panel_http_requests_total counter'];
    for (const [key, count] of this.requests) {
      const [method, route, status] = key.split('\u0000');
      lines.push(`panel_http_requests_total{method="${method}",route="${escapeLabel(route!)}",status="${status}"} ${count}`);
    }
    lines.push('# HELP panel_http_request_duration_seconds Time to answer HTTP requests, by method and route pattern.', '# TYPE panel_http_request_duration_seconds histogram');
    for (const [key, histogram] of this.durations) {
      const [method, route] = key.split('\u0000');
      const labels = `method="${method}",route="${escapeLabel(route!)}"`;
      DURATION_BUCKETS.forEach((bound, index) => lines.push(`panel_http_request_duration_seconds_bucket{${labels},le="${bound}"} ${histogram.counts[index]}`));
      lines.push(`panel_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${histogram.count}`);
      lines.push(`panel_http_request_duration_seconds_sum{${labels}} ${histogram.sum}`);
      lines.push(`panel_http_request_duration_seconds_count{${labels}} ${histogram.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

export const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
