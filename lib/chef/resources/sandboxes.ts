/** Chef's sandboxes resource and the file store uploads go to: /sandboxes[/:id], /file_store/sandboxes/:id/:checksum. */
import { commitSandbox, createSandbox, uploadSandboxFile } from '@/lib/services/cookbooks';
import { DOCUMENT_LIMIT, jsonBody, ok, route, type ChefRoute } from '../context';

export const sandboxRoutes: ChefRoute[] = [
  route('POST', 'sandboxes', async (ctx) => {
    const sb = await createSandbox(ctx.actor, jsonBody(ctx));
    const uri = `${ctx.orgUrl}/sandboxes/${sb.id}`;
    const checksums = Object.fromEntries(
      Object.entries(sb.checksums).map(([c, v]) => [c, v.needs_upload ? { url: `${ctx.orgUrl}/file_store/sandboxes/${sb.id}/${c}`, needs_upload: true } : { needs_upload: false }]),
    );
    ctx.headers.location = uri;
    return ok({ uri, checksums, sandbox_id: sb.id }, 201);
  }),

  route('PUT', 'sandboxes/:id', async (ctx) => ok(await commitSandbox(ctx.actor, ctx.params.id, jsonBody(ctx)))),

  {
    ...route('PUT', 'file_store/sandboxes/:id/:checksum', async (ctx) => {
      // Issue 46: streamed to the file store as it arrives (the router hands the body over unread).
      const length = ctx.req.header('content-length');
      const size = ctx.req.stream ? (length && /^\d+$/.test(length) ? Number(length) : null) : null;
      await uploadSandboxFile(ctx.actor, ctx.params.id, ctx.params.checksum, ctx.req.stream ?? ctx.req.body, ctx.req.header('content-md5'), new Date(), size);
      return { status: 204 };
    }),
    // Cookbook files go to the file store (bookshelf in Chef Server), not through erchef's JSON limit.
    bodyLimit: DOCUMENT_LIMIT,
    streamed: true,
  },
];
