/** Loads the fixture files copied from the design folder into test/fixtures. */
import fs from 'node:fs';
import path from 'node:path';

export const FIXTURES_DIR = path.resolve(import.meta.dirname, 'fixtures');

export function fixtureText(name: string): string {
  return fs.readFileSync(path.join(FIXTURES_DIR, name), 'utf8');
}

export function fixtureJson<T = unknown>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}
