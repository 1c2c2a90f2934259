import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chefRouteTable } from './router';

const DOC = path.resolve(import.meta.dirname, '../../docs/chef-compatibility.md');

describe('docs/chef-compatibility.md lists every Chef route', () => {
  const doc = fs.readFileSync(DOC, 'utf8');
  const documented = new Set([...doc.matchAll(/^\| `([A-Z]+) (\/[^`]*)` \|/gm)].map((m) => `${m[1]} ${m[2]}`));
  const served = chefRouteTable().map((r) => `${r.method} ${r.path}`);

  it('reads both lists', () => {
    expect(served.length).toBeGreaterThanOrEqual(40);
    expect(documented.size).toBeGreaterThan(0);
  });

  it('every route the router serves is in the table', () => {
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
  });

  it('the table lists nothing the router does not serve', () => {
    expect([...documented].filter((r) => !served.includes(r))).toEqual([]);
  });
});
