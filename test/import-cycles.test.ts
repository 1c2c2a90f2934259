/**
 * No import cycles in the application code (issue 22: two query files imported each other). Walks every
 * module under app/, components/ and lib/ (tests and generated code aside), resolves its imports the way
 * TypeScript does here (`@/` is the repository root, relative paths from the file, `.ts`/`.tsx`/`index`),
 * and fails naming each cycle. `import type` counts too: a type-only cycle is still two modules that
 * cannot be understood one without the other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');
const ROOTS = ['app', 'components', 'lib'];
const SKIP = /(^|\/)(generated|generated-pg|node_modules)(\/|$)|\.test\.tsx?$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (SKIP.test(rel)) continue;
    if (e.isDirectory()) walk(rel, out);
    else if (/\.tsx?$/.test(e.name)) out.push(rel);
  }
  return out;
}

function resolve(from: string, source: string, files: Set<string>): string | null {
  let base: string;
  if (source.startsWith('@/')) base = source.slice(2);
  else if (source.startsWith('.')) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), source));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) if (files.has(candidate)) return candidate;
  return null;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The module graph: file → the project files it imports. */
export function importGraph(): Map<string, string[]> {
  const list = ROOTS.flatMap((r) => walk(r));
  const files = new Set(list);
  const graph = new Map<string, string[]>();
  for (const file of list) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const deps = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(file, m[1] ?? m[2], files);
      if (target && target !== file) deps.add(target);
    }
    graph.set(file, [...deps]);
  }
  return graph;
}

/** Every strongly connected component of more than one module (Tarjan), each sorted. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe('import cycles', () => {
  it('the checker finds a cycle when there is one', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('the application code has none', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('lib/db/queries/compare.ts')).toContain('lib/db/queries/missing-artifacts.ts');
    expect(cycles(graph)).toEqual([]);
  });
});
