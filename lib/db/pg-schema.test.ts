import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PG_SCHEMA, SOURCE_SCHEMA, postgresSchemaFrom } from './pg-schema';

describe('the generated PostgreSQL schema', () => {
  it('is what `npm run db:pg-schema` makes of prisma/schema.prisma (run it and commit when this fails)', () => {
    const source = fs.readFileSync(SOURCE_SCHEMA, 'utf8');
    expect(fs.readFileSync(PG_SCHEMA, 'utf8')).toBe(postgresSchemaFrom(source));
  });

  it('changes only the provider and the client output', () => {
    const source = fs.readFileSync(SOURCE_SCHEMA, 'utf8');
    const pg = postgresSchemaFrom(source);
    expect(pg).toMatch(/provider\s*=\s*"postgresql"/);
    expect(pg).toMatch(/output\s*=\s*"\.\.\/\.\.\/lib\/db\/generated-pg"/);
    expect(pg).not.toMatch(/"sqlite"/);
    const models = (s: string) => s.slice(s.indexOf('\nmodel '));
    expect(models(pg)).toBe(models(source));
  });

  it('refuses a source it does not recognise', () => {
    expect(() => postgresSchemaFrom('datasource db {\n  provider = "mysql"\n}\n')).toThrow(/provider = "sqlite"/);
  });
});
