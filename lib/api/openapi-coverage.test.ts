import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi';
import { API_CONTRACTS } from './contracts';

const ROOT = path.resolve(import.meta.dirname, '../../app/api/v1');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** Every app/api/v1/**\/route.ts, with the HTTP methods it exports and its OpenAPI path (`[name]` → `{name}`). */
function routeFiles(dir = ROOT): { file: string; path: string; methods: string[] }[] {
  const out: { file: string; path: string; methods: string[] }[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...routeFiles(full));
    else if (entry.name === 'route.ts') {
      const source = fs.readFileSync(full, 'utf8');
      const methods = new Set<string>();
      for (const m of source.matchAll(/export\s+(?:const|let|var|(?:async\s+)?function)\s+([A-Z]+)\b/g)) if (METHODS.includes(m[1])) methods.add(m[1]);
      for (const m of source.matchAll(/export\s*\{([^}]*)\}/g)) for (const name of m[1].split(',').map((s) => s.trim().split(/\s+as\s+/).pop()!)) if (METHODS.includes(name)) methods.add(name);
      const rel = path.relative(ROOT, path.dirname(full)).split(path.sep).filter(Boolean);
      out.push({ file: path.relative(process.cwd(), full), path: '/' + rel.map((s) => s.replace(/^\[(?:\.\.\.)?(.+)\]$/, '{$1}')).join('/'), methods: [...methods] });
    }
  }
  return out;
}

describe('the OpenAPI document (generated from lib/api/contracts)', () => {
  const doc = openApiDocument() as { paths: Record<string, Record<string, { responses: object; requestBody?: object }>> };
  const routes = routeFiles();

  it('finds the route files it checks', () => {
    expect(routes.length).toBeGreaterThanOrEqual(23);
    expect(routes.flatMap((r) => r.methods).length).toBeGreaterThanOrEqual(30);
  });

  it('describes every route file and every method it exports', () => {
    const missing = routes.flatMap((r) => r.methods.filter((m) => !doc.paths[r.path]?.[m.toLowerCase()]).map((m) => `${m} ${r.path} (${r.file})`));
    expect(missing).toEqual([]);
  });

  it('describes nothing that no route file serves', () => {
    const served = new Set(routes.flatMap((r) => r.methods.map((m) => `${m} ${r.path}`)));
    const stale = API_CONTRACTS.map((c) => `${c.method} ${c.path}`).filter((k) => !served.has(k));
    expect(stale).toEqual([]);
  });

  it('binds every handler to its contract: each route file names the contract of each method it exports', () => {
    const unbound: string[] = [];
    for (const r of routes) {
      const source = fs.readFileSync(r.file, 'utf8');
      for (const m of r.methods) {
        const contract = API_CONTRACTS.find((c) => c.method === m && c.path === r.path)!;
        const name = contractName(contract);
        const call = new RegExp(`export\\s+const\\s+${m}\\s*=\\s*(?:apiRoute|publicRoute)\\(\\s*${name}\\b`);
        if (!name || !call.test(source)) unbound.push(`${m} ${r.path} (${r.file}) should be apiRoute(${name ?? '<contract>'}, …)`);
      }
    }
    expect(unbound).toEqual([]);
  });

  it('documents authentication failures on every non-public operation, and a 400 wherever input is parsed', () => {
    for (const c of API_CONTRACTS) {
      const op = doc.paths[c.path][c.method.toLowerCase()];
      if (c.auth !== 'public') expect(Object.keys(op.responses), `${c.method} ${c.path}`).toEqual(expect.arrayContaining(['401', '403']));
      if (c.body || c.query) expect(Object.keys(op.responses), `${c.method} ${c.path}`).toContain('400');
      if (c.body) expect(op.requestBody, `${c.method} ${c.path}`).toBeDefined();
    }
  });
});

/** The exported name of a contract object in lib/api/contracts/*.ts. */
const contractNames = new Map<object, string>();
function contractName(contract: object | undefined): string | undefined {
  if (!contract) return undefined;
  if (!contractNames.size) {
    const dir = path.resolve(import.meta.dirname, 'contracts');
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts')) {
      const source = fs.readFileSync(path.join(dir, f), 'utf8');
      for (const m of source.matchAll(/export const (\w+) = defineRoute\(\{\s*method: '([A-Z]+)',\s*path: '([^']+)'/g)) {
        const c = API_CONTRACTS.find((x) => x.method === m[2] && x.path === m[3]);
        if (c) contractNames.set(c, m[1]);
      }
    }
  }
  return contractNames.get(contract);
}
