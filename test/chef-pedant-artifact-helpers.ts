/**
 * Helpers for the oc-chef-pedant ports of cookbook_artifacts/ and sandboxes/
 * (chef/chef-server oc-chef-pedant/lib/pedant/rspec/cookbook_util.rb, lib/pedant/sandbox.rb).
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { signRequest } from '@/lib/auth/chef-signing';
import type { ChefActor, ChefHarness } from './chef-harness';

export const md5 = (s: string | Buffer) => createHash('md5').update(s).digest('hex');

/** pedant `Pedant::Utility.new_random_file` contents. */
export const randomContent = () => `pedant-random-${randomBytes(16).toString('hex')}`;

export interface ArtifactOpts {
  version?: string;
  maintainer?: string;
  maintainer_email?: string;
  description?: string;
  long_description?: string;
  license?: string;
  dependencies?: Record<string, string>;
  recipes?: { name: string; path: string; checksum: string; specificity: string }[];
}

/** pedant `new_cookbook_artifact` (v0 segments below API v2, `all_files` from v2). */
export function newCookbookArtifact(apiVersion: number, name: string, identifier: string, opts: ArtifactOpts = {}): Record<string, any> {
  const version = opts.version ?? '1.0.0';
  const metadata = {
    version,
    name,
    maintainer: opts.maintainer ?? 'Chef Software, Inc.',
    maintainer_email: opts.maintainer_email ?? 'support@chef.io',
    description: opts.description ?? 'A fabulous new cookbook',
    long_description: opts.long_description ?? '',
    license: opts.license ?? 'Apache v2.0',
    dependencies: opts.dependencies ?? {},
    attributes: {},
    recipes: {},
  };
  const base = { name, identifier, version, chef_type: 'cookbook_version', 'frozen?': false };
  if (apiVersion >= 2) {
    const allFiles = (opts.recipes ?? []).map((r) => ({ ...r, name: `recipes/${r.name}` }));
    return { ...base, all_files: allFiles, metadata };
  }
  return {
    ...base,
    recipes: opts.recipes ?? [],
    definitions: [], libraries: [], attributes: [], files: [], templates: [], resources: [], providers: [], root_files: [],
    metadata,
  };
}

/** pedant `expect_matching_cookbook_artifact`: strict top-level keys and values, lax metadata. */
export function expectMatchingArtifact(got: Record<string, any>, expected: Record<string, any>): void {
  const { metadata, ...rest } = expected;
  expect(Object.keys(got).sort()).toEqual(Object.keys(expected).sort());
  expect(got).toMatchObject(rest);
  expect(got.metadata).toMatchObject(metadata);
}

/** A signed PUT of raw bytes to an absolute upload URL (pedant `upload_to_sandbox`). */
export async function uploadBytes(chef: ChefHarness, url: string, bytes: string, as: Exclude<ChefActor, 'anonymous' | `bearer:${string}`> = 'admin') {
  const key = await chef.privateKey(as);
  const path = new URL(url).pathname;
  const userId = as.startsWith('client:') ? as.slice('client:'.length) : as;
  const headers = {
    ...signRequest({ method: 'PUT', path, body: bytes, userId, privateKey: key }),
    'content-type': 'application/x-binary',
    'content-md5': createHash('md5').update(bytes).digest('base64'),
  };
  const r = await fetch(url, { method: 'PUT', headers, body: bytes });
  return { status: r.status, text: await r.text(), headers: r.headers };
}

/** pedant `create_sandbox(files)`. */
export async function createSandbox(chef: ChefHarness, contents: string[], as: ChefActor = 'admin') {
  const r = await chef.request('POST', 'sandboxes', { as, body: { checksums: Object.fromEntries(contents.map((c) => [md5(c), null])) } });
  expect(r.status, r.text).toBe(201);
  return r.json as { uri: string; sandbox_id: string; checksums: Record<string, { url?: string; needs_upload: boolean }> };
}

/** pedant `commit_sandbox(sandbox)`. */
export function commitSandbox(chef: ChefHarness, sandboxId: string, as: ChefActor = 'admin') {
  return chef.request('PUT', `sandboxes/${sandboxId}`, { as, body: { is_completed: true } });
}

/** pedant `upload_files_to_sandbox(files)`: create, upload what is missing, commit. */
export async function uploadFilesToSandbox(chef: ChefHarness, contents: string[]): Promise<void> {
  const sb = await createSandbox(chef, contents);
  for (const c of contents) {
    const entry = sb.checksums[md5(c)];
    if (entry.needs_upload) expect((await uploadBytes(chef, entry.url!, c)).status).toBeLessThan(300);
  }
  const done = await commitSandbox(chef, sb.sandbox_id);
  expect(done.status, done.text).toBe(200);
}

/** pedant `dummy_recipe(name, checksum)`. */
export const dummyRecipe = (name: string, checksum: string) => ({ name: `${name}.rb`, path: `recipes/${name}.rb`, checksum, specificity: 'default' });
