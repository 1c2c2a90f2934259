import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

/** Lints a snippet as if it were the given file, with the project's config. */
async function lint(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint();
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.map((m) => m.message);
}

describe('the layer boundaries (eslint.config.mjs, eslint/layers.mjs)', () => {
  it('lib/domain imports only itself: no node: modules, no packages, no other layer', async () => {
    expect(await lint('lib/domain/lock/x.ts', "import { createHash } from 'node:crypto';")).toEqual([expect.stringMatching(/no node: or other built-in/)]);
    expect(await lint('lib/domain/lock/x.ts', "import fs from 'fs';")).toHaveLength(1);
    expect(await lint('lib/domain/lock/x.ts', "import { z } from 'zod';")).toEqual([expect.stringMatching(/no packages/)]);
    expect(await lint('lib/domain/lock/x.ts', "import { db } from '@/lib/db/client';")).toEqual([expect.stringMatching(/imports only itself/)]);
    expect(await lint('lib/domain/lock/x.ts', "import { x } from '../../errors';")).toEqual([expect.stringMatching(/imports only itself, not lib\/errors/)]);
    expect(await lint('lib/domain/lock/x.ts', "import { diffLocks } from '../diff/diff';\nexport * from './json';")).toEqual([]);
  });

  it('a client component imports neither lib/db (types included) nor lib/services code; a server component may', async () => {
    const client = "'use client';\nimport type { BoardData } from '@/lib/db/queries/board';\nimport { x } from '@/lib/services/promotion';";
    expect(await lint('components/x.tsx', client)).toHaveLength(2);
    expect(await lint('components/x.tsx', client.replace("'use client';\n", ''))).toEqual([]);
    expect(await lint('components/x.tsx', "'use client';\nimport type { BoardData } from '@/lib/types/board';")).toEqual([]);
    // DTO types may live beside the services (type imports are erased), but not in the funnel.
    expect(await lint('components/x.tsx', "'use client';\nimport type { RollbackResult } from '@/lib/services/promotion';")).toEqual([]);
    expect(await lint('components/x.tsx', "'use client';\nimport type { X } from '@/lib/services/funnel';")).toHaveLength(1);
  });

  it('only lib/services and the seed import the write funnel (lib/services/funnel)', async () => {
    expect(await lint('app/api/v1/x/route.ts', "import { parseInput } from '@/lib/services/funnel';")).toEqual([expect.stringMatching(/only lib\/services and lib\/seed/)]);
    expect(await lint('lib/services/nodes/x.ts', "import { parseInput } from '@/lib/services/funnel';")).toEqual([]);
    expect(await lint('lib/seed/x.ts', "import { audit } from '@/lib/services/funnel';")).toEqual([]);
  });

  it("outside a feature folder only the feature's face (lib/services/<feature>/index.ts) is imported", async () => {
    expect(await lint('lib/chef/resources/x.ts', "import { createChefNode } from '@/lib/services/nodes/nodes';")).toEqual([expect.stringMatching(/face @\/lib\/services\/nodes/)]);
    expect(await lint('lib/services/search/x.ts', "import { nodeJson } from '../nodes/nodes';")).toEqual([expect.stringMatching(/face @\/lib\/services\/nodes/)]);
    expect(await lint('lib/services/rings/x.ts', "import { audit } from '@/lib/services/funnel/audit';")).toEqual([expect.stringMatching(/face @\/lib\/services\/funnel/)]);
    expect(await lint('lib/services/background.ts', "import { deliverDue } from './webhooks/worker';")).toEqual([expect.stringMatching(/face @\/lib\/services\/webhooks/)]);
    // The face itself, from anywhere; a feature's own files, from inside it.
    expect(await lint('lib/chef/resources/x.ts', "import { createChefNode } from '@/lib/services/nodes';")).toEqual([]);
    expect(await lint('lib/services/search/x.ts', "import { nodeJson } from '@/lib/services/nodes';")).toEqual([]);
    expect(await lint('lib/services/nodes/x.ts', "import { nodeJson } from './nodes';\nimport { listNodes } from '@/lib/services/nodes/queries';")).toEqual([]);
  });

  it('lib/db imports no lib/services', async () => {
    expect(await lint('lib/db/queries/x.ts', "export { rollback } from '@/lib/services/promotion';")).toEqual([expect.stringMatching(/lib\/db may not import/)]);
  });

  // Issue 22: the five leaks a review found (auth → db and services, types → services, ops → api, services → chef).
  it('each layer imports only the layers below it', async () => {
    expect(await lint('lib/auth/x.ts', "import { loadAccess } from '@/lib/db/queries/access';")).toEqual([expect.stringMatching(/lib\/auth may not import lib\/db\/queries\/access/)]);
    expect(await lint('lib/auth/x.ts', "import { x } from '../services/login-throttle';")).toEqual([expect.stringMatching(/lib\/auth may not import lib\/services/)]);
    expect(await lint('lib/types/x.ts', "import type { X } from '@/lib/services/compose';")).toEqual([expect.stringMatching(/lib\/types may not import/)]);
    expect(await lint('lib/ops/x.ts', "import { ALLOWED_METHODS } from '@/lib/api/early-guard';")).toEqual([expect.stringMatching(/lib\/ops may not import lib\/api/)]);
    expect(await lint('lib/services/x.ts', "import { handleChef } from '@/lib/chef/router';")).toEqual([expect.stringMatching(/lib\/services may not import lib\/chef/)]);
    expect(await lint('lib/db/queries/x.ts', "import { handleChef } from '@/lib/chef/router';")).toEqual([expect.stringMatching(/lib\/db may not import/)]);
    // Downward imports are fine.
    expect(await lint('lib/authn/x.ts', "import { loadAccess } from '@/lib/db/queries/access';\nimport { can } from '@/lib/auth/permissions';")).toEqual([]);
    expect(await lint('lib/services/x.ts', "import { db } from '@/lib/db/client';\nimport { log } from '@/lib/ops/log';")).toEqual([]);
    expect(await lint('lib/chef/x.ts', "import { createClient } from '@/lib/services/clients';")).toEqual([]);
  });

  // Issue 44 (docs/architecture.md 3): app, lib/api, lib/chef and lib/actions import none of each other.
  it('doors do not import doors: identity is lib/authn, crypto lib/auth, configuration lib/config', async () => {
    const doorRule = /Layer boundary: .* may not import .*: doors do not import doors; identity is lib\/authn, crypto lib\/auth, configuration lib\/config/;
    expect(await lint('lib/api/x.ts', "import { authenticateSigned } from '@/lib/chef/authn';")).toEqual([expect.stringMatching(/^Layer boundary: lib\/api may not import lib\/chef\/authn: doors do not import doors/)]);
    expect(await lint('lib/actions/admin/x.ts', "import { chefOrg } from '@/lib/chef/context';")).toEqual([expect.stringMatching(doorRule)]);
    expect(await lint('lib/actions/admin/x.ts', "import { memberJson } from '../../api/org-members';")).toEqual([expect.stringMatching(/lib\/actions may not import lib\/api\/org-members/)]);
    expect(await lint('app/(console)/x/page.tsx', "import { chefOrg } from '@/lib/chef/router';")).toEqual([expect.stringMatching(/^Layer boundary: app may not import lib\/chef\/router/)]);
    expect(await lint('lib/chef/x.ts', "import type { ApiContext } from '@/lib/api/route';")).toEqual([expect.stringMatching(doorRule)]);
    expect(await lint('lib/chef/x.ts', "export { x } from '@/app/(console)/layout';")).toEqual([expect.stringMatching(doorRule)]);
    // The /api/v1 route files live under app/api (Next's rule) and are the API door's own.
    expect(await lint('app/api/v1/x/route.ts', "import { apiRoute } from '@/lib/api/route';")).toEqual([]);
    expect(await lint('app/api/v1/x/route.ts', "import { chefOrg } from '@/lib/chef/context';")).toEqual([expect.stringMatching(/^Layer boundary: lib\/api may not import lib\/chef\/context/)]);
    // What the doors share lives below them.
    const shared = "import { authenticate } from '@/lib/authn';\nimport { signRequest } from '@/lib/auth/chef-signing';\nimport { chefOrg } from '@/lib/config';";
    for (const door of ['app/(console)/x/page.tsx', 'lib/api/x.ts', 'lib/chef/x.ts', 'lib/actions/x.ts']) expect(await lint(door, shared)).toEqual([]);
    // Identity sits below the doors; configuration below everything.
    expect(await lint('lib/authn/x.ts', "import { handleChef } from '@/lib/chef/router';")).toEqual([expect.stringMatching(/lib\/authn may not import lib\/chef\/router/)]);
    expect(await lint('lib/services/x.ts', "import { authenticate } from '@/lib/authn';")).toEqual([expect.stringMatching(/lib\/services may not import lib\/authn/)]);
    expect(await lint('lib/config.ts', "import { log } from '@/lib/ops/log';")).toEqual([expect.stringMatching(/lib\/config imports nothing of the project/)]);
  });
});
