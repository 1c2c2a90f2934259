/**
 * `npm run lint`'s dead-code check (issue 22; what knip or ts-prune report, without a new dependency):
 * every source file is reachable from an entry point, and every exported value is imported somewhere
 * (or used in its own file). Entry points are what a tool or framework loads by path: Next's app
 * directory files and proxy.ts, scripts/, test/, e2e/, bench/, the config files, and every *.test.ts.
 * Their exports count as used. Imports are read from the syntax (TypeScript's parser, no type check):
 * `import`, `export … from`, `import()`, `require()` and `vi.mock()`; `import * as` and dynamic imports
 * use every export of their target. Exported types are not checked (they cost nothing at run time).
 *
 *   tsx scripts/dead-code.ts            prints what is unused; exit 1 when anything is
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE_DIRS = ['app', 'components', 'lib', 'scripts', 'test', 'e2e', 'e2e-sso', 'bench', 'eslint'];
const TOP_FILES = ['proxy.ts', 'next.config.mjs', 'playwright.config.ts', 'playwright.screenshot.config.ts', 'playwright.sso.config.ts', 'vitest.config.ts', 'prisma.config.ts', 'eslint.config.mjs', 'postcss.config.mjs'];
const SKIP = /(^|\/)(generated|generated-pg|node_modules|\.next|\.auth)(\/|$)|\.d\.ts$/;
const SOURCE = /\.(tsx?|mjs)$/;
/** Exports kept on purpose though nothing imports them yet, each with its reason ("file name"). */
const KEEP = new Map<string, string>([['lib/actions/rings/ring-actions.ts startRingAction', "issue 30's start-a-ring form is in progress; the API route starts rings meanwhile"]]);

/** Files a tool or the framework loads by path: all of their exports are used. */
function isEntry(file: string): boolean {
  if (TOP_FILES.includes(file)) return true;
  if (/^(scripts|test|e2e|e2e-sso|bench|eslint)\//.test(file)) return true;
  if (/\.test\.tsx?$/.test(file)) return true;
  // Next's app directory: pages, layouts, routes and the other special files.
  return /^app\/(.*\/)?(page|layout|route|loading|error|global-error|not-found|template|default|icon|apple-icon|opengraph-image|twitter-image|sitemap|robots|manifest)\.(tsx?|mjs)$/.test(file);
}

function walk(dir: string, out: string[]): void {
  if (!fs.existsSync(path.join(ROOT, dir))) return;
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (SKIP.test(rel)) continue;
    if (e.isDirectory()) walk(rel, out);
    else if (SOURCE.test(e.name)) out.push(rel);
  }
}

function resolveFrom(from: string, source: string, files: Set<string>): string | null {
  let base: string;
  if (source.startsWith('@/')) base = source.slice(2);
  else if (source.startsWith('.')) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), source));
  else return null;
  base = base.replace(/\.(js|mjs)$/, (m) => (files.has(base) ? m : ''));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.mjs`, `${base}/index.ts`, `${base}/index.tsx`]) if (files.has(candidate)) return candidate;
  return null;
}

interface ModuleInfo {
  /** Exported value names declared here (local name = exported name) → line. */
  values: Map<string, number>;
  /** Exported names that are types only. */
  types: Set<string>;
  /** Re-exports: exported name → [target file, name there]. */
  reexports: Map<string, [string, string]>;
  /** `export * from`: target files. */
  star: string[];
  /** Imports: target file → names used ('*' for all). */
  uses: Map<string, Set<string>>;
  /** Identifiers read in this file (for exports used in their own file). */
  identifiers: Map<string, number>;
}

function hasExport(node: ts.Node): boolean {
  return !!(ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword));
}
function hasDefault(node: ts.Node): boolean {
  return !!(ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword));
}

function analyse(file: string, files: Set<string>): ModuleInfo {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const info: ModuleInfo = { values: new Map(), types: new Set(), reexports: new Map(), star: [], uses: new Map(), identifiers: new Map() };
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const use = (spec: string, name: string) => {
    const target = resolveFrom(file, spec, files);
    if (!target) return;
    if (!info.uses.has(target)) info.uses.set(target, new Set());
    info.uses.get(target)!.add(name);
  };
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const spec = st.moduleSpecifier.text;
      const clause = st.importClause;
      if (!clause) use(spec, '*'); // side-effect import: the module runs
      else {
        if (clause.name) use(spec, 'default');
        const b = clause.namedBindings;
        if (b && ts.isNamespaceImport(b)) use(spec, '*');
        else if (b) for (const el of b.elements) use(spec, (el.propertyName ?? el.name).text);
        if (!clause.name && !b) use(spec, '*');
      }
    } else if (ts.isExportDeclaration(st)) {
      const spec = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier.text : null;
      const target = spec ? resolveFrom(file, spec, files) : null;
      if (!st.exportClause) {
        if (target) info.star.push(target);
      } else if (ts.isNamespaceExport(st.exportClause)) {
        if (spec) use(spec, '*');
        if (target) info.reexports.set(st.exportClause.name.text, [target, '*']);
      } else {
        for (const el of st.exportClause.elements) {
          const exported = el.name.text;
          const local = (el.propertyName ?? el.name).text;
          if (target) info.reexports.set(exported, [target, local]);
          else if (st.isTypeOnly || el.isTypeOnly) info.types.add(exported);
          else info.values.set(exported, line(el));
        }
      }
    } else if (ts.isExportAssignment(st)) {
      info.values.set('default', line(st));
    } else if (hasExport(st)) {
      if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) info.types.add(st.name.text);
      else if (hasDefault(st)) info.values.set('default', line(st));
      else if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) info.values.set(d.name.text, line(d));
      } else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) info.values.set(st.name.text, line(st));
    }
  }
  // Dynamic imports, require() and vi.mock() anywhere; identifiers read (not the declarations themselves).
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && n.arguments.length && ts.isStringLiteralLike(n.arguments[0])) {
      const callee = n.expression.getText(sf);
      if (n.expression.kind === ts.SyntaxKind.ImportKeyword || callee === 'require' || /^vi\.(mock|doMock|importActual)$/.test(callee)) use(n.arguments[0].text, '*');
    }
    if (ts.isIdentifier(n)) {
      const p = n.parent;
      const declared = p && (ts.isVariableDeclaration(p) || ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p) || ts.isEnumDeclaration(p)) && p.name === n;
      const exportSpec = p && ts.isExportSpecifier(p);
      if (!declared && !exportSpec) info.identifiers.set(n.text, (info.identifiers.get(n.text) ?? 0) + 1);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return info;
}

export function findDeadCode(): { unusedFiles: string[]; unusedExports: string[] } {
  const list: string[] = [];
  for (const d of SOURCE_DIRS) walk(d, list);
  for (const f of TOP_FILES) if (fs.existsSync(path.join(ROOT, f))) list.push(f);
  const files = new Set(list);
  const mods = new Map(list.map((f) => [f, analyse(f, files)] as const));

  // Reachability from the entry points.
  const reached = new Set<string>();
  const stack = list.filter(isEntry);
  while (stack.length) {
    const f = stack.pop()!;
    if (reached.has(f)) continue;
    reached.add(f);
    const m = mods.get(f)!;
    for (const t of [...m.uses.keys(), ...m.star, ...[...m.reexports.values()].map(([t]) => t)]) if (!reached.has(t)) stack.push(t);
  }

  // Names used of each file, following re-exports and `export *` to where they are declared.
  const used = new Map<string, Set<string>>();
  const mark = (file: string, name: string, seen = new Set<string>()) => {
    const key = `${file}\0${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (!used.has(file)) used.set(file, new Set());
    used.get(file)!.add(name);
    const m = mods.get(file);
    if (!m) return;
    if (name === '*') {
      for (const [, [t, n]] of m.reexports) mark(t, n, seen);
      for (const t of m.star) mark(t, '*', seen);
      return;
    }
    const re = m.reexports.get(name);
    if (re) mark(re[0], re[1], seen);
    if (!m.values.has(name) && !m.types.has(name)) for (const t of m.star) mark(t, name, seen);
  };
  for (const f of list) {
    const m = mods.get(f)!;
    if (isEntry(f)) mark(f, '*');
    for (const [t, names] of m.uses) for (const n of names) mark(t, n);
  }

  const unusedFiles = list.filter((f) => !reached.has(f)).sort();
  const unusedExports: string[] = [];
  for (const f of list) {
    if (!reached.has(f) || isEntry(f)) continue;
    const m = mods.get(f)!;
    const u = used.get(f) ?? new Set();
    if (u.has('*')) continue;
    for (const [name, ln] of m.values) {
      if (u.has(name)) continue;
      // Used in its own file (knip's ignoreExportsUsedInFile): the export is redundant, the code is not dead.
      if (name !== 'default' && (m.identifiers.get(name) ?? 0) > 0) continue;
      if (KEEP.has(`${f} ${name}`)) continue;
      unusedExports.push(`${f}:${ln} ${name}`);
    }
  }
  return { unusedFiles, unusedExports: unusedExports.sort() };
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('dead-code.ts')) {
  const { unusedFiles, unusedExports } = findDeadCode();
  for (const f of unusedFiles) console.log(`unused file: ${f}`);
  for (const e of unusedExports) console.log(`unused export: ${e}`);
  if (unusedFiles.length || unusedExports.length) {
    console.error(`dead code: ${unusedFiles.length} unused file(s), ${unusedExports.length} unused export(s) (scripts/dead-code.ts). Remove them, or import them where they are meant to be used.`);
    process.exit(1);
  }
  console.log('dead code: none');
}
