import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi';
import { API_CONTRACTS } from './contracts';
import { API_ROUTES } from './routes';

/** Every row of the /api/v1 route table (lib/api/routes.ts), as `METHOD /path`. */
const rows = API_ROUTES.map((r) => `${r.contract.method} ${r.contract.path}`);

describe('the OpenAPI document (generated from lib/api/contracts)', () => {
  const doc = openApiDocument() as { paths: Record<string, Record<string, { responses: object; requestBody?: object }>> };

  it('finds the route table it checks', () => {
    expect(new Set(API_ROUTES.map((r) => r.contract.path)).size).toBeGreaterThanOrEqual(23);
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it('describes every row of the route table', () => {
    const missing = API_ROUTES.filter((r) => !doc.paths[r.contract.path]?.[r.contract.method.toLowerCase()]).map((r) => `${r.contract.method} ${r.contract.path}`);
    expect(missing).toEqual([]);
  });

  it('describes nothing that no row serves, and each operation is served once', () => {
    const stale = API_CONTRACTS.map((c) => `${c.method} ${c.path}`).filter((k) => !rows.includes(k));
    expect(stale).toEqual([]);
    expect(rows.filter((k, i) => rows.indexOf(k) !== i)).toEqual([]);
  });

  it('binds every handler to its contract: each row carries the contract object the document is generated from', () => {
    const unbound = API_ROUTES.filter((r) => !API_CONTRACTS.includes(r.contract)).map((r) => `${r.contract.method} ${r.contract.path}`);
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
