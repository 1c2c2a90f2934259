/**
 * No module-level mutable state outside lib/process-state.ts (issue 40).
 *
 * The server process holds two copies of every module of lib/: scripts/serve.ts's (tsx: the Chef routes, lib/ops,
 * the background workers) and the one compiled into Next's server bundle (pages, route handlers, actions). A
 * module-level cache, memo, registry, counter or in-flight map therefore exists twice, filled and invalidated apart:
 * on PostgreSQL every /api/v1 read answered 500 because the pg pool was registered in one copy's WeakMap and looked
 * up in the other's, and a cache dropped in one copy and read in the other is a stale-authorization bug. State kept
 * with `processState(key, init)` / `processBox(key)` is one per process.
 *
 * This test parses every server module of app/, components/ and lib/ (and proxy.ts) and fails on:
 *   - a top-level `let` or `var`;
 *   - a top-level `const` made by an argument-less `new` (an empty Map, Set, WeakMap, array buffer, …), or by an
 *     immediately invoked function (a closure holding state), or by a known stateful factory (STATEFUL_FACTORIES);
 *   - a top-level binding the module mutates (`x.set(…)`, `x.push(…)`, `x.k = …`, `x[k] = …`, `x.n++`, `delete x.k`);
 *   - a non-readonly `static` class field;
 *   - any use of `globalThis` (process state goes through lib/process-state.ts, not ad-hoc globals);
 * unless ALLOWED names it with the reason it is harmless. It also fails on an ALLOWED entry that no longer matches
 * anything (the list stays true), on a process-state key that is not a string literal, and on one key used by two
 * modules (two owners of one slot).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');
const ROOTS = ['app', 'components', 'lib'];
const SKIP = /(^|\/)(generated|generated-pg|node_modules)(\/|$)|\.test\.tsx?$/;
const HELPER = 'lib/process-state.ts';

/**
 * What is provably harmless, `file:name` → why. A finding not listed fails the test; so does an entry that no
 * longer matches a finding.
 */
const ALLOWED: Record<string, string> = {
  'lib/domain/lock/lossless-reference.ts:NUMBER': 'a sticky RegExp: its lastIndex is set before each match inside one synchronous call; nothing survives the call',
  'lib/domain/lock/sha256.ts:encoder': 'a TextEncoder keeps no state between calls',
  'lib/domain/lock/sha256.ts:globalThis': "reads node:crypto through process.getBuiltinModule (lib/domain imports no built-ins); keeps nothing",
  'lib/domain/shared/canonical.ts:view': 'an 8-byte scratch DataView, written and read within one synchronous call',
  'lib/domain/merge/merge.ts:originLogs':
    'metadata of the merge result it is keyed by (a WeakMap on the object merge() returns), read by the same module for that object; lib/domain is pure, and no merge result is kept in process state, so maker and reader are one copy',
  'lib/services/funnel/store-revision.ts:checked':
    'a capability check (only checkRevision makes a CheckedRevision that storeRevision accepts), within one call chain of one copy; an object from the other copy would be refused (fails closed), never let through',
  'lib/services/funnel/net-guard.ts:blocked': 'a constant table: the refused address ranges, filled once at load and only read',
  'lib/ops/request-id.ts:globalThis': 'reads the Web Crypto global (crypto.randomUUID); keeps nothing',
  'lib/api/router.ts:compiled':
    'the /api/v1 route table compiled once, on first use, from the contracts (code, not data): every copy of the module compiles the same table and nothing request- or deployment-specific is kept',
};

/** Functions whose result holds state (a queue, a cache): a module-level call must go through processState. */
const STATEFUL_FACTORIES = new Set(['groupCommit']);

const MUTATORS = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin', 'addAddress', 'addRange', 'addSubnet']);

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (SKIP.test(rel)) continue;
    if (e.isDirectory()) walk(rel, out);
    else if (/\.tsx?$/.test(e.name)) out.push(rel);
  }
  return out;
}

interface Finding {
  key: string;
  where: string;
  what: string;
}

/** The identifier at the root of `a.b[c].d`. */
function rootName(e: ts.Expression): string | null {
  let cur = e;
  while (ts.isPropertyAccessExpression(cur) || ts.isElementAccessExpression(cur) || ts.isParenthesizedExpression(cur) || ts.isNonNullExpression(cur)) cur = cur.expression;
  return ts.isIdentifier(cur) ? cur.text : null;
}

const unwrap = (e: ts.Expression | undefined): ts.Expression | undefined => {
  let cur = e;
  while (cur && (ts.isAsExpression(cur) || ts.isSatisfiesExpression(cur) || ts.isParenthesizedExpression(cur) || ts.isTypeAssertionExpression(cur))) cur = cur.expression;
  return cur;
};

function scan(rel: string, text: string, keys: Map<string, Set<string>>, badKeys: string[]): Finding[] {
  // Client modules run in the browser: one copy per page, nothing shared with the server.
  if (/^\s*(\/\/[^\n]*\n\s*)*['"]use client['"]/.test(text)) return [];
  const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, rel.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const line = (n: ts.Node) => `${rel}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
  const findings: Finding[] = [];

  // Which top-level bindings the module mutates anywhere, and every globalThis and process-state key.
  const mutated = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && (MUTATORS.has(n.expression.name.text) || /^set[A-Z]/.test(n.expression.name.text))) {
      const r = rootName(n.expression.expression);
      if (r) mutated.add(r);
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment && !ts.isIdentifier(n.left)) {
      const r = rootName(n.left);
      if (r) mutated.add(r);
    }
    if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) && !ts.isIdentifier(n.operand)) {
      const r = rootName(n.operand);
      if (r) mutated.add(r);
    }
    if (ts.isDeleteExpression(n)) {
      const r = rootName(n.expression);
      if (r) mutated.add(r);
    }
    if (ts.isIdentifier(n) && n.text === 'globalThis' && rel !== HELPER) findings.push({ key: `${rel}:globalThis`, where: line(n), what: 'globalThis (use processState from lib/process-state.ts)' });
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && (n.expression.text === 'processState' || n.expression.text === 'processBox') && rel !== HELPER) {
      const arg = n.arguments[0];
      if (!arg || !ts.isStringLiteralLike(arg)) badKeys.push(`${line(n)}: the key of ${n.expression.text} must be a string literal`);
      else {
        if (!keys.has(arg.text)) keys.set(arg.text, new Set());
        keys.get(arg.text)!.add(rel);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);

  for (const st of sf.statements) {
    if (ts.isClassDeclaration(st)) {
      for (const m of st.members) {
        const mods = ts.canHaveModifiers(m) ? (ts.getModifiers(m) ?? []) : [];
        if (ts.isPropertyDeclaration(m) && mods.some((x) => x.kind === ts.SyntaxKind.StaticKeyword) && !mods.some((x) => x.kind === ts.SyntaxKind.ReadonlyKeyword)) {
          findings.push({ key: `${rel}:${st.name?.text ?? 'class'}.${m.name.getText(sf)}`, where: line(m), what: 'a static class field that is not readonly' });
        }
      }
      if (st.name && mutated.has(st.name.text)) findings.push({ key: `${rel}:${st.name.text}`, where: line(st), what: 'a class the module mutates' });
    }
    if (ts.isFunctionDeclaration(st) && st.name && mutated.has(st.name.text)) findings.push({ key: `${rel}:${st.name.text}`, where: line(st), what: 'a function the module hangs state on' });
    if (!ts.isVariableStatement(st)) continue;
    const isConst = (st.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const d of st.declarationList.declarations) {
      const names = ts.isIdentifier(d.name) ? [d.name.text] : d.name.elements.flatMap((el) => (ts.isBindingElement(el) && ts.isIdentifier(el.name) ? [el.name.text] : []));
      const init = unwrap(d.initializer);
      let what: string | null = null;
      const processWide = !!init && ts.isCallExpression(init) && ts.isIdentifier(init.expression) && (init.expression.text === 'processState' || init.expression.text === 'processBox');
      if (processWide && isConst) continue;
      if (!isConst) what = `a module-level ${st.declarationList.flags & ts.NodeFlags.Let ? 'let' : 'var'}`;
      else if (init && ts.isNewExpression(init) && (!init.arguments || init.arguments.length === 0)) what = `an empty \`new ${init.expression.getText(sf)}()\``;
      else if (init && ts.isCallExpression(init) && (ts.isArrowFunction(unwrap(init.expression)!) || ts.isFunctionExpression(unwrap(init.expression)!))) what = 'an immediately invoked function (a closure may hold state)';
      else if (init && ts.isCallExpression(init) && ts.isIdentifier(init.expression) && STATEFUL_FACTORIES.has(init.expression.text)) what = `${init.expression.text}(…), which holds state`;
      else if (names.some((n) => mutated.has(n))) what = 'a binding the module mutates';
      if (what) for (const n of names) findings.push({ key: `${rel}:${n}`, where: line(d), what });
    }
  }
  return findings;
}

describe('module-level state (issue 40)', () => {
  const files = [...ROOTS.flatMap((r) => walk(r)), 'proxy.ts'].filter((f) => fs.existsSync(path.join(ROOT, f)));
  const keys = new Map<string, Set<string>>();
  const badKeys: string[] = [];
  const findings = files.flatMap((f) => scan(f, fs.readFileSync(path.join(ROOT, f), 'utf8'), keys, badKeys));

  it('is kept through lib/process-state.ts, or is on the allow-list with its reason', () => {
    const unexplained = findings.filter((f) => !(f.key in ALLOWED)).map((f) => `${f.where}: ${f.what} — keep it with processState()/processBox() from lib/process-state.ts, or add '${f.key}' to ALLOWED in test/module-state.test.ts with why it is harmless`);
    expect(unexplained).toEqual([]);
  });

  it('allows only what is still there', () => {
    const seen = new Set(findings.map((f) => f.key));
    expect(Object.keys(ALLOWED).filter((k) => !seen.has(k))).toEqual([]);
  });

  it('gives each piece of process state one owner, under a literal key', () => {
    expect(badKeys).toEqual([]);
    const shared = [...keys].filter(([, owners]) => owners.size > 1).map(([k, owners]) => `'${k}' is used by ${[...owners].join(' and ')}`);
    expect(shared).toEqual([]);
    expect(keys.size).toBeGreaterThan(10);
  });

  it('finds what it looks for (the scanner itself)', () => {
    const probe = [
      'let counter = 0;',
      'const cache = new Map<string, string>();',
      'const table = new Set(["a"]);',
      'const list: string[] = [];',
      'const memo = (() => { let x = 0; return () => x++; })();',
      'const box = { n: 0 };',
      'const g = globalThis as unknown as { x?: number };',
      'const queue = groupCommit(async (b: string[]) => b);',
      'class K { static hits = 0; static readonly NAME = "k"; }',
      'export function f() { counter++; list.push("x"); box.n++; return table.has("a") && cache.size && memo() && g.x && K.hits && queue; }',
    ].join('\n');
    const found = scan('lib/probe.ts', probe, new Map(), []).map((f) => f.key.slice('lib/probe.ts:'.length));
    expect(found.sort()).toEqual(['K.hits', 'box', 'cache', 'counter', 'globalThis', 'list', 'memo', 'queue'].sort());
    expect(scan('lib/probe.ts', "'use client';\nlet x = 0;", new Map(), [])).toEqual([]);
  });
});
