/** Chef's cookbook artifacts resource and their files: /cookbook_artifacts[/:name[/:identifier]], /file_store/checksums/:checksum. */
import { assertCookbookRead, deleteArtifact, getArtifact, listArtifacts, putArtifact, readCookbookFile, readPresignedCookbookFile, directFileUrls } from '@/lib/services/cookbooks';
import { DOCUMENT_LIMIT, jsonBody, ok, route, type ChefRoute, type Ctx, type PresignedCtx } from '../context';
import { chefOrg } from '@/lib/config';
import { presignExpiry, presignQuery } from '@/lib/auth/presigned-url';
import { manifestFiles } from '@/lib/domain/cookbook/manifest';
import type { StoredObject } from '@/lib/db/file-store/file-store';

function artifactList(ctx: Ctx, lists: Map<string, string[]>) {
  const n = ctx.req.query.get('num_versions');
  const limit = n === null || n === 'all' ? Infinity : Math.max(0, Number.parseInt(n, 10) || 0);
  return Object.fromEntries(
    [...lists].map(([name, ids]) => [
      name,
      { url: `${ctx.orgUrl}/cookbook_artifacts/${name}`, versions: ids.slice(0, limit).map((id) => ({ url: `${ctx.orgUrl}/cookbook_artifacts/${name}/${id}`, identifier: id })) },
    ]),
  );
}

/**
 * Each file's URL: pre-signed and expiring (lib/auth/presigned-url.ts), as Chef hands out bookshelf/S3 URLs. Issue 46: with
 * S3_DIRECT_DOWNLOADS=true, a file kept in S3 is named by a pre-signed URL of the bucket, expiring at the same time.
 */
async function withUrls(ctx: Ctx, manifest: Record<string, unknown>) {
  const now = Date.now();
  const direct = await directFileUrls(
    manifestFiles(manifest).map((f) => f.checksum),
    presignExpiry(now),
    new Date(now),
  );
  // Signed over the path this server receives (a proxy may serve PUBLIC_URL under a prefix).
  const url = (c: unknown) => direct.get(String(c)) ?? `${ctx.orgUrl}/file_store/checksums/${c}?${presignQuery(`/organizations/${chefOrg()}/file_store/checksums/${c}`, now)}`;
  const addUrls = (list: unknown) => (Array.isArray(list) ? list.map((f) => (f && typeof f === 'object' ? { ...f, url: url((f as { checksum?: unknown }).checksum) } : f)) : list);
  const out: Record<string, unknown> = { ...manifest };
  for (const k of ['all_files', 'recipes', 'attributes', 'files', 'templates', 'libraries', 'definitions', 'resources', 'providers', 'root_files']) if (k in out) out[k] = addUrls(out[k]);
  return out;
}

/** A cookbook file (content-addressed: cached for good; 304 for the ETag the caller has). */
async function fileAnswer(ctx: PresignedCtx, assertRead: () => void, read: () => Promise<StoredObject>) {
  const etag = `"${ctx.params.checksum}"`;
  if (ctx.req.header('if-none-match') === etag) {
    assertRead();
    Object.assign(ctx.headers, { etag, 'cache-control': 'private, max-age=31536000, immutable' });
    return { status: 304 };
  }
  // Issue 46: streamed from the store (S3) or sent from the row (the database store).
  const file = await read();
  Object.assign(ctx.headers, { 'content-type': 'application/octet-stream', etag, 'cache-control': 'private, max-age=31536000, immutable', 'content-length': String(file.size) });
  return Buffer.isBuffer(file.body) ? { status: 200, bytes: file.body } : { status: 200, stream: file.body };
}

export const cookbookArtifactRoutes: ChefRoute[] = [
  {
    ...route(
      'GET',
      'file_store/checksums/:checksum',
      async (ctx) => fileAnswer(ctx, () => assertCookbookRead(ctx.actor), () => readCookbookFile(ctx.actor, ctx.params.checksum)),
      // The same file by its pre-signed URL (no Chef signature needed until it expires).
      async (ctx) => fileAnswer(ctx, () => undefined, () => readPresignedCookbookFile(ctx.params.checksum)),
    ),
    // The file store's limit (as every file_store path), not erchef's JSON limit.
    bodyLimit: DOCUMENT_LIMIT,
  },

  route('GET', 'cookbook_artifacts', async (ctx) => ok(artifactList(ctx, await listArtifacts(ctx.actor)))),
  route('GET', 'cookbook_artifacts/:name', async (ctx) => ok(artifactList(ctx, await listArtifacts(ctx.actor, ctx.params.name)))),

  route('GET', 'cookbook_artifacts/:name/:identifier', async (ctx) => ok(await withUrls(ctx, (await getArtifact(ctx.actor, ctx.params.name, ctx.params.identifier)).manifest))),

  route('PUT', 'cookbook_artifacts/:name/:identifier', async (ctx) => {
    const r = await putArtifact(ctx.actor, ctx.params.name, ctx.params.identifier, jsonBody(ctx));
    if (r.status === 201) ctx.headers.location = `${ctx.orgUrl}/cookbook_artifacts/${ctx.params.name}/${ctx.params.identifier}`;
    return ok(await withUrls(ctx, r.manifest), r.status);
  }),

  route('DELETE', 'cookbook_artifacts/:name/:identifier', async (ctx) => ok(await withUrls(ctx, await deleteArtifact(ctx.actor, ctx.params.name, ctx.params.identifier)))),
];
