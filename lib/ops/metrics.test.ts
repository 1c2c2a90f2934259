import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from './metrics';

describe('Prometheus text format', () => {
  it('renders counters, histograms and gauges with escaped labels', async () => {
    const r = new Registry();
    const c = r.register(new Counter('t_requests_total', 'Requests.', ['route', 'status'] as const));
    c.inc({ route: '/a/[x]', status: '200' });
    c.inc({ route: '/a/[x]', status: '200' }, 2);
    c.inc({ route: 'quote"back\\slash', status: '500' });
    const h = r.register(new Histogram('t_seconds', 'Latency.', ['route'] as const, [0.1, 1]));
    h.observe({ route: '/a' }, 0.05);
    h.observe({ route: '/a' }, 0.5);
    h.observe({ route: '/a' }, 5);
    const g = r.register(new Gauge('t_pool', 'Pool.', () => [{ labels: { state: 'idle' }, value: 3 }]));
    r.register(new Gauge('t_broken', 'Fails.', () => {
      throw new Error('database down');
    }));
    const text = await r.render();
    expect(text).toContain('# TYPE t_requests_total counter\n');
    expect(text).toContain('t_requests_total{route="/a/[x]",status="200"} 3\n');
    expect(text).toContain('t_requests_total{route="quote\\"back\\\\slash",status="500"} 1\n');
    expect(text).toContain('t_seconds_bucket{route="/a",le="0.1"} 1\n');
    expect(text).toContain('t_seconds_bucket{route="/a",le="1"} 2\n');
    expect(text).toContain('t_seconds_bucket{route="/a",le="+Inf"} 3\n');
    expect(text).toContain('t_seconds_sum{route="/a"} 5.55\n');
    expect(text).toContain('t_seconds_count{route="/a"} 3\n');
    expect(text).toContain('t_pool{state="idle"} 3\n');
    expect(text).toContain('t_broken NaN\n');
    g.collect(() => 7);
    expect(await r.render()).toContain('t_pool 7\n');
    // Registering a name twice keeps the first metric.
    expect(r.register(new Counter('t_requests_total', 'again'))).toBe(c);
  });
});
