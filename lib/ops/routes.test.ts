import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appRoutePatterns, consoleRouteLabeler, routeMatcher } from './routes';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('route patterns for metrics and logs', () => {
  it('lists the app routes without route groups', () => {
    const patterns = appRoutePatterns(path.join(ROOT, 'app'));
    expect(patterns).toContain('/');
    expect(patterns).toContain('/api/health');
    expect(patterns).toContain('/api/ready');
    expect(patterns).toContain('/policies/[name]');
    // /api/v1 is not Next's (issue 44 step 4): the node:http front serves it and its router names the route.
    expect(patterns.filter((p) => p.startsWith('/api/v1'))).toEqual([]);
    expect(patterns.some((p) => p.includes('('))).toBe(false);
  });

  it('prefers static segments, then parameters, then catch-alls', () => {
    const match = routeMatcher(['/', '/a/static', '/a/[x]', '/a/[x]/b', '/[...missing]', '/docs/[[...slug]]']);
    expect(match('/')).toBe('/');
    expect(match('/a/static')).toBe('/a/static');
    expect(match('/a/other')).toBe('/a/[x]');
    expect(match('/a/other/b')).toBe('/a/[x]/b');
    expect(match('/a/other/c')).toBe('/[...missing]');
    expect(match('/docs')).toBe('/docs/[[...slug]]');
    expect(match('/docs/x/y')).toBe('/docs/[[...slug]]');
    expect(routeMatcher(['/a'])('/b')).toBeNull();
  });

  it('labels any console path with a bounded value', () => {
    const label = consoleRouteLabeler(ROOT);
    expect(label('/api/ready')).toBe('/api/ready');
    expect(label('/policies/x-' + Math.random())).toBe('/policies/[name]');
    expect(label('/_next/static/chunks/abc.js')).toBe('/_next/static');
    expect(label('/_next/image')).toBe('/_next');
    // Unknown pages fall into the console's catch-all page: one label for all of them.
    expect(label('/no/such/page/' + Math.random())).toBe('/[...missing]');
  });
});
