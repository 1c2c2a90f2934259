/**
 * The console's layers as an ESLint rule (docs: README "Architecture"). Imports are resolved the
 * way TypeScript resolves them here (`@/` is the repository root, relative paths from the file), so
 * the rule sees the module an import reaches, whatever its spelling:
 *
 * - lib/domain imports only lib/domain (no `@/` module outside it, no node: or other built-ins, no packages);
 * - a client component ("use client" under components/) imports neither lib/db nor lib/services
 *   (`import type` of a service's DTO types is allowed: the issue lets DTOs live beside the services, and type imports are erased);
 * - a feature folder under lib/services (lib/services/<feature>/) shows one face: outside the folder only its index.ts
 *   is imported (`@/lib/services/<feature>`), from doors and from other features alike (docs/architecture.md 3, 4);
 * - the write funnel (lib/services/funnel) is imported only by lib/services and the seed (lib/seed);
 * - each layer imports only layers below it (LOWER_ONLY): lib/auth (the permission table and pure
 *   primitives; authentication that reads the database is lib/authn), lib/types and lib/validation
 *   import no data access, services or entry points; lib/db imports no services; lib/ops (logs,
 *   metrics, the HTTP front) and lib/services import no entry points (the doors and lib/authn);
 *   lib/authn (identity) imports no door; lib/config imports nothing of the project;
 * - doors do not import doors (docs/architecture.md 3): a file under one door (app, lib/api, lib/chef,
 *   lib/actions) imports nothing under another. app/api/** holds the API door's Next route files, so it
 *   counts as lib/api.
 */
import path from 'node:path';
import { builtinModules } from 'node:module';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUILTINS = new Set(builtinModules);

const rel = (abs) => path.relative(ROOT, abs).split(path.sep).join('/');
const under = (file, dir) => file === dir || file.startsWith(dir + '/');

/** Where an import leads: { kind: 'local', path } (repository-relative, no extension), 'builtin' or 'package'. */
function target(fromFile, source) {
  if (source.startsWith('node:') || BUILTINS.has(source.split('/')[0])) return { kind: 'builtin' };
  if (source.startsWith('@/')) return { kind: 'local', path: source.slice(2) };
  if (source.startsWith('.')) return { kind: 'local', path: rel(path.resolve(path.dirname(fromFile), source)) };
  return { kind: 'package' };
}

function isClientModule(program) {
  for (const s of program.body) {
    if (s.type !== 'ExpressionStatement' || !s.directive) break;
    if (s.directive === 'use client') return true;
  }
  return false;
}

/** Tests and benchmarks exercise a layer from outside (fixtures, vitest, internals, bulk population): the rules are for the code they exercise. */
const isTest = (file) => /\.test\.tsx?$/.test(file) || under(file, 'test') || under(file, 'e2e') || under(file, 'bench');

/** The doors: how the world reaches the console (pages, the console API, Chef's API, server actions). */
const DOORS = ['app', 'lib/api', 'lib/chef', 'lib/actions'];
/** The doors and identity (lib/authn: below the doors, above the services). */
const ENTRY_POINTS = [...DOORS, 'lib/authn'];

/** The door a file belongs to, or null. Next requires the API door's route files under app/api. */
function doorOf(file) {
  if (under(file, 'app/api')) return 'lib/api';
  return DOORS.find((d) => under(file, d)) ?? null;
}

const DOOR_WHY = 'doors do not import doors; identity is lib/authn, crypto lib/auth, configuration lib/config';
/** Layers that may import only what is below them: [layer, what it may not import, why]. */
const LOWER_ONLY = [
  ['lib/auth', ['lib/db', 'lib/services', 'lib/ops', ...ENTRY_POINTS], 'lib/auth is the permission table and pure primitives (authentication that reads the database lives in lib/authn)'],
  ['lib/types', ['lib/db', 'lib/services', 'lib/ops', ...ENTRY_POINTS], 'DTO types are plain: they import no data access, services or entry points'],
  ['lib/validation', ['lib/db', 'lib/services', 'lib/ops', ...ENTRY_POINTS], 'schemas are plain: they import no data access, services or entry points'],
  ['lib/db', ['lib/services', ...ENTRY_POINTS], 'the services build on the queries, not the other way round'],
  ['lib/ops', ['lib/services', ...ENTRY_POINTS], 'operations (logs, metrics, the HTTP front) sit below the entry points'],
  ['lib/services', ENTRY_POINTS, 'the entry points call the services, not the other way round'],
  ['lib/authn', DOORS, 'identity (lib/authn) sits below the doors that ask it'],
];

/** The feature folder (lib/services/<feature>/) a repository path is inside, with the rest of its path; null outside one. */
function featureFile(p) {
  const m = /^lib\/services\/([^/]+)\/(.+)$/.exec(p);
  return m ? { feature: m[1], rest: m[2] } : null;
}

/** The layer rule an import from `file` to `to` breaks, or null. */
export function violation(file, to, { client, typeOnly = false }) {
  if (isTest(file)) return null;
  if (under(file, 'lib/domain')) {
    if (to.kind === 'builtin') return 'lib/domain is pure: no node: or other built-in modules';
    if (to.kind === 'package') return 'lib/domain is pure: no packages';
    if (!under(to.path, 'lib/domain')) return `lib/domain imports only itself, not ${to.path}`;
    return null;
  }
  if (to.kind !== 'local') return null;
  if (client && under(file, 'components') && (under(to.path, 'lib/db') || (under(to.path, 'lib/services') && !(typeOnly && !under(to.path, 'lib/services/funnel'))))) return `a client component ("use client") may not import ${to.path}: take DTO types from lib/types or beside the services, and data from props or the API`;
  const inside = featureFile(to.path);
  if (inside && !/^index(\.tsx?)?$/.test(inside.rest) && !under(file, `lib/services/${inside.feature}`)) {
    return `import the feature's face @/lib/services/${inside.feature} (its index.ts), not ${to.path}: outside lib/services/${inside.feature}/ only its index.ts is imported`;
  }
  if (under(to.path, 'lib/services/funnel') && !under(file, 'lib/services') && !under(file, 'lib/seed')) return `only lib/services and lib/seed may import ${to.path}: the write funnel is reached through a feature`;
  if (file === 'lib/config.ts') return `lib/config imports nothing of the project, not ${to.path}`;
  const from = doorOf(file);
  const toDoor = doorOf(to.path);
  if (from && toDoor && from !== toDoor) return `${from} may not import ${to.path}: ${DOOR_WHY}`;
  for (const [layer, forbidden, why] of LOWER_ONLY) {
    if (under(file, layer) && forbidden.some((f) => under(to.path, f))) return `${layer} may not import ${to.path}: ${why}`;
  }
  return null;
}

const importsRule = {
  meta: { type: 'problem', docs: { description: 'Layer boundaries between lib/domain, lib/db, lib/services and client components' }, schema: [] },
  create(context) {
    const file = rel(context.filename);
    let client = false;
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      const typeOnly = node.importKind === 'type' || node.exportKind === 'type';
      const why = violation(file, target(context.filename, source), { client, typeOnly });
      if (why) context.report({ node, message: `Layer boundary: ${why}.` });
    };
    return {
      Program(program) {
        client = isClientModule(program);
      },
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { meta: { name: 'layers' }, rules: { imports: importsRule } };
