/**
 * The differential suite's cases: a workspace of path cookbooks and Policyfiles (the last one is the
 * subject; earlier ones are its includes), rendered to files for the real `chef install` and to the
 * console's engine inputs. Attribute values use the console's lossless representation (JsonNumber
 * lexemes, recorded key order) so one model feeds both sides.
 */
import { createHash } from 'node:crypto';
import { JsonNumber, orderedKeys, setKeyOrder } from '@/lib/domain';

export interface CookbookSpec {
  /** Directory under `cookbooks/`. */
  dir: string;
  name: string;
  version: string;
  deps: [string, string][];
  recipes: string[];
}

export interface PolicySpec {
  name: string;
  /** Directory of the Policyfile, relative to the workspace root ('.' for the root). */
  dir: string;
  runList: string[];
  named: [string, string[]][];
  /** Path cookbooks: name and path relative to the policy's directory. */
  cookbooks: { name: string; path: string; constraint?: string }[];
  /** include_policy lines: include name, the lock's path relative to the policy's directory, and the included policy's directory. */
  includes: { name: string; path: string; dir: string }[];
  default: Record<string, unknown>;
  override: Record<string, unknown>;
}

export interface DiffCase {
  id: string;
  seed: number;
  kind: 'policy' | 'include';
  /** What the generator meant to exercise (for humans reading a failure). */
  tags: string[];
  cookbooks: CookbookSpec[];
  /** In install order; the last one is the subject. */
  policies: PolicySpec[];
}

/** What chef-cli produced for one Policyfile: the lock text, or its error. */
export interface ChefOutcome {
  lock: string | null;
  error: string | null;
}

/** Chef outcomes by policy directory. */
export type ChefOutcomes = Record<string, ChefOutcome>;

// ---- values in the console's representation, written as Ruby for the Policyfile ----

export const num = (lexeme: string) => new JsonNumber(lexeme);

export function obj(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return setKeyOrder(o, entries.map(([k]) => k));
}

/** A Ruby double-quoted string literal with the same content. */
export function rubyString(s: string): string {
  return JSON.stringify(s).replace(/#/g, '\\#');
}

export function rubyValue(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (v instanceof JsonNumber) return v.lexeme.startsWith('-') ? `(${v.lexeme})` : v.lexeme;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return rubyString(v);
  if (Array.isArray(v)) return '[' + v.map(rubyValue).join(', ') + ']';
  const o = v as Record<string, unknown>;
  return '{' + orderedKeys(o).map((k) => `${rubyString(k)} => ${rubyValue(o[k])}`).join(', ') + '}';
}

// ---- files ----

export function cookbookFiles(cb: CookbookSpec): Record<string, string> {
  const meta = [`name ${rubyString(cb.name)}`, `version ${rubyString(cb.version)}`, ...cb.deps.map(([d, c]) => `depends ${rubyString(d)}, ${rubyString(c)}`)].join('\n') + '\n';
  const files: Record<string, string> = { 'metadata.rb': meta };
  for (const r of cb.recipes) files[`recipes/${r}.rb`] = `# ${cb.name} ${cb.version} ${r}\n`;
  return files;
}

export function policyfileText(p: PolicySpec): string {
  const lines = [`name ${rubyString(p.name)}`];
  if (p.runList.length) lines.push(`run_list ${p.runList.map(rubyString).join(', ')}`);
  for (const [name, items] of p.named) lines.push(`named_run_list ${rubyString(name)}${items.length ? ', ' + items.map(rubyString).join(', ') : ''}`);
  for (const inc of p.includes) lines.push(`include_policy ${rubyString(inc.name)}, path: ${rubyString(inc.path)}`);
  for (const cb of p.cookbooks) lines.push(`cookbook ${rubyString(cb.name)}, ${cb.constraint ? rubyString(cb.constraint) + ', ' : ''}path: ${rubyString(cb.path)}`);
  for (const k of orderedKeys(p.default)) lines.push(`default[${rubyString(k)}] = ${rubyValue(p.default[k])}`);
  for (const k of orderedKeys(p.override)) lines.push(`override[${rubyString(k)}] = ${rubyValue(p.override[k])}`);
  return lines.join('\n') + '\n';
}

/** Every file of the workspace, by path relative to its root. */
export function workspaceFiles(c: DiffCase): Record<string, string> {
  const files: Record<string, string> = {};
  for (const cb of c.cookbooks) for (const [f, text] of Object.entries(cookbookFiles(cb))) files[`cookbooks/${cb.dir}/${f}`] = text;
  for (const p of c.policies) files[p.dir === '.' ? 'Policyfile.rb' : `${p.dir}/Policyfile.rb`] = policyfileText(p);
  return files;
}

/**
 * chef-cli's identifier of a path cookbook (`cookbook_profiler/identifiers.rb`): SHA-1 of
 * "path:md5\n" for every file, sorted by path. The suite checks it against chef-cli's locks.
 */
export function cookbookIdentifier(cb: CookbookSpec): { identifier: string; dotted_decimal_identifier: string } {
  const files = Object.entries(cookbookFiles(cb)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = files.map(([f, content]) => `${f}:${createHash('md5').update(content).digest('hex')}\n`).join('');
  const identifier = createHash('sha1').update(text).digest('hex');
  const dotted = [identifier.slice(0, 14), identifier.slice(14, 28), identifier.slice(28, 40)].map((h) => BigInt('0x' + h).toString()).join('.');
  return { identifier, dotted_decimal_identifier: dotted };
}

/** The minimal text a human needs to reproduce a case: every Policyfile, then every metadata.rb. */
export function describeCase(c: DiffCase): string {
  const out = [`case ${c.id} (seed ${c.seed}, ${c.kind}; ${c.tags.join(', ') || 'plain'})`];
  for (const p of c.policies) out.push(`--- ${p.dir}/Policyfile.rb\n${policyfileText(p)}`);
  for (const cb of c.cookbooks) out.push(`--- cookbooks/${cb.dir}/metadata.rb\n${cookbookFiles(cb)['metadata.rb']}`);
  return out.join('\n');
}
