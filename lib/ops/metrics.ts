/**
 * Prometheus metrics without a dependency: counters, histograms and gauges
 * read at scrape time, rendered in the text exposition format (0.0.4).
 *
 * The registry is process state (lib/process-state.ts): scripts/serve.ts and the Next bundle load
 * their own copies of this module in one process, and both must count into
 * the same numbers. Label values are bounded by the callers (route patterns,
 * never raw paths), so the series count stays small.
 */
import { processState } from '../process-state';

type Labels = Record<string, string>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(names: readonly string[], values: readonly string[], extra?: [string, string]): string {
  const parts = names.map((n, i) => `${n}="${escapeLabel(values[i] ?? '')}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

interface Metric {
  readonly name: string;
  render(): string | Promise<string>;
}

export class Counter<L extends string = string> implements Metric {
  private readonly series = new Map<string, { values: string[]; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[] = [],
  ) {}

  inc(labels?: Partial<Record<L, string>>, by = 1): void {
    const values = this.labelNames.map((n) => labels?.[n] ?? '');
    const key = values.join('\u0000');
    const s = this.series.get(key);
    if (s) s.value += by;
    else this.series.set(key, { values, value: by });
  }

  /** The current value for one label set (tests). */
  get(labels?: Partial<Record<L, string>>): number {
    return this.series.get(this.labelNames.map((n) => labels?.[n] ?? '').join('\u0000'))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (!this.series.size && !this.labelNames.length) lines.push(`${this.name} 0`);
    for (const s of this.series.values()) lines.push(`${this.name}${labelText(this.labelNames, s.values)} ${num(s.value)}`);
    return lines.join('\n');
  }
}

export class Histogram<L extends string = string> implements Metric {
  private readonly series = new Map<string, { values: string[]; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    readonly buckets: readonly number[],
  ) {}

  observe(labels: Partial<Record<L, string>>, value: number): void {
    const values = this.labelNames.map((n) => labels[n] ?? '');
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      s = { values, counts: new Array(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    // Counts per bucket (not cumulative) here; rendering accumulates.
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]) i++;
    if (i < this.buckets.length) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      let acc = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        acc += s.counts[i];
        lines.push(`${this.name}_bucket${labelText(this.labelNames, s.values, ['le', num(this.buckets[i])])} ${acc}`);
      }
      lines.push(`${this.name}_bucket${labelText(this.labelNames, s.values, ['le', '+Inf'])} ${s.count}`);
      lines.push(`${this.name}_sum${labelText(this.labelNames, s.values)} ${num(s.sum)}`);
      lines.push(`${this.name}_count${labelText(this.labelNames, s.values)} ${s.count}`);
    }
    return lines.join('\n');
  }
}

export type GaugeSample = { labels?: Labels; value: number };
export type GaugeCollector = () => number | GaugeSample[] | Promise<number | GaugeSample[]>;

/** A gauge whose value is read when scraped (a database count, a pool's state). */
export class Gauge implements Metric {
  private collector: GaugeCollector;
  constructor(
    readonly name: string,
    readonly help: string,
    collector: GaugeCollector = () => 0,
  ) {
    this.collector = collector;
  }

  /** Replaces how the value is read (features that own the number plug themselves in). */
  collect(fn: GaugeCollector): void {
    this.collector = fn;
  }

  async render(): Promise<string> {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    let value: number | GaugeSample[];
    try {
      value = await this.collector();
    } catch {
      // A failing collector (database down) must not take /metrics down: NaN says "unknown".
      value = NaN;
    }
    const samples = typeof value === 'number' ? [{ value }] : value;
    for (const s of samples) {
      const names = Object.keys(s.labels ?? {});
      lines.push(`${this.name}${labelText(names, names.map((n) => s.labels![n]))} ${num(s.value)}`);
    }
    return lines.join('\n');
  }
}

export class Registry {
  private readonly metrics = new Map<string, Metric>();

  register<M extends Metric>(metric: M): M {
    const existing = this.metrics.get(metric.name);
    if (existing) return existing as M;
    this.metrics.set(metric.name, metric);
    return metric;
  }

  async render(): Promise<string> {
    const parts = await Promise.all([...this.metrics.values()].map((m) => m.render()));
    return parts.join('\n') + '\n';
  }
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function build() {
  const registry = new Registry();
  const startedAt = Date.now() / 1000;
  return {
    registry,
    httpRequests: registry.register(new Counter('policy_console_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', ['route', 'method', 'status'] as const)),
    httpDuration: registry.register(
      new Histogram('policy_console_http_request_duration_seconds', 'Time from a request arriving to its response finishing, by route pattern and method.', ['route', 'method'] as const, LATENCY_BUCKETS),
    ),
    inFlight: registry.register(new Gauge('policy_console_http_requests_in_flight', 'Requests being served right now.')),
    promotions: registry.register(new Counter('policy_console_promotions_total', 'Stage pointers moved by a promotion that committed, by kind (policy, bulk, cookbook).', ['kind'] as const)),
    pendingApprovals: registry.register(new Gauge('policy_console_pending_approval_requests', 'Promotion requests waiting for an approval.')),
    webhookBacklog: registry.register(new Gauge('policy_console_webhook_backlog', 'Webhook deliveries not yet delivered (pending or waiting for a retry).')),
    chefSigned: registry.register(
      new Counter('policy_console_chef_signed_requests_total', 'Chef-signed requests (X-Ops-Sign), by signing protocol version and result (ok, rejected).', ['protocol', 'result'] as const),
    ),
    dbPool: registry.register(new Gauge('policy_console_db_pool_connections', 'Database connections by state (total, idle, waiting requests for a connection).')),
    startTime: registry.register(new Gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.', () => startedAt)),
    memory: registry.register(new Gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage.rss())),
  };
}

export type Metrics = ReturnType<typeof build>;

/** The process-wide metrics (one set, whichever bundle asks: lib/process-state.ts). */
export function metrics(): Metrics {
  return processState('metrics.registry', build);
}

/** Counts moved stage pointers once their transaction committed. */
export function countPromotions(kind: 'policy' | 'bulk' | 'cookbook', n = 1): void {
  if (n > 0) metrics().promotions.inc({ kind }, n);
}

/** Counts a Chef-signed request by protocol version ('1.0', '1.1', '1.3') and whether its signature verified. */
export function countChefSigned(protocol: string, result: 'ok' | 'rejected'): void {
  metrics().chefSigned.inc({ protocol, result });
}
