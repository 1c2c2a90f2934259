/**
 * Route patterns for the metrics and the request log: the pattern that
 * serves a path (`/policies/[name]`), never the raw path, so a label's values
 * are bounded by the code, not by what clients send.
 */
import fs from 'node:fs';
import path from 'node:path';

interface Node {
  statics: Map<string, Node>;
  dynamic?: Node;
  /** `[...x]` (one or more segments) or `[[...x]]` (zero or more). */
  catchAll?: { pattern: string; optional: boolean };
  pattern?: string;
}

const newNode = (): Node => ({ statics: new Map() });

/** The App Router's routes under `appDir`: every folder with a page or a route handler, route groups and private folders left out. */
export function appRoutePatterns(appDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, segs: string[]) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => e.isFile() && /^(page|route)\.(tsx?|jsx?|mdx?)$/.test(e.name))) out.push('/' + segs.join('/'));
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('_') || e.name.startsWith('@')) continue;
      const group = /^\(.*\)$/.test(e.name);
      walk(path.join(dir, e.name), group ? segs : [...segs, e.name]);
    }
  };
  walk(appDir, []);
  return [...new Set(out)].sort();
}

/**
 * A matcher over App Router patterns: static segments win over `[param]`,
 * which wins over catch-alls, as in Next. Unknown paths answer null.
 */
export function routeMatcher(patterns: string[]): (pathname: string) => string | null {
  const root = newNode();
  for (const p of patterns) {
    let node = root;
    const segs = p.split('/').filter(Boolean);
    for (const s of segs) {
      const opt = /^\[\[\.\.\..+\]\]$/.test(s);
      if (opt || /^\[\.\.\..+\]$/.test(s)) {
        node.catchAll = { pattern: p, optional: opt };
        node = newNode(); // nothing can follow a catch-all
        break;
      }
      if (/^\[.+\]$/.test(s)) node = node.dynamic ??= newNode();
      else {
        let next = node.statics.get(s);
        if (!next) node.statics.set(s, (next = newNode()));
        node = next;
      }
    }
    if (!segs.some((s) => s.startsWith('[...') || s.startsWith('[[...'))) node.pattern = p;
  }
  const find = (node: Node, segs: string[], i: number): string | null => {
    if (i === segs.length) return node.pattern ?? (node.catchAll?.optional ? node.catchAll.pattern : null);
    const s = node.statics.get(segs[i]);
    const viaStatic = s && find(s, segs, i + 1);
    if (viaStatic) return viaStatic;
    const viaDynamic = node.dynamic && find(node.dynamic, segs, i + 1);
    if (viaDynamic) return viaDynamic;
    return node.catchAll?.pattern ?? null;
  };
  return (pathname) => {
    const segs = pathname.split('/').filter(Boolean);
    return find(root, segs, 0);
  };
}

/**
 * The pattern for any path the console serves that is not a Chef route:
 * Next's own assets, public files, the app's routes, else `other`.
 */
export function consoleRouteLabeler(root: string): (pathname: string) => string {
  const match = routeMatcher(appRoutePatterns(path.join(root, 'app')));
  let publicFiles = new Set<string>();
  try {
    publicFiles = new Set(fs.readdirSync(path.join(root, 'public'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => '/' + path.relative(path.join(root, 'public'), path.join(e.parentPath, e.name)).split(path.sep).join('/')));
  } catch {
    /* no public folder */
  }
  return (pathname) => {
    if (pathname.startsWith('/_next/')) return pathname.startsWith('/_next/static/') ? '/_next/static' : '/_next';
    if (publicFiles.has(pathname)) return '/public';
    return match(pathname) ?? 'other';
  };
}
