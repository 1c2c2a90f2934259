import { type ApiRoute, handle, json } from '@/lib/api/envelope';
import { deleteGitRepositoryRoute, listGitRepositoriesRoute, registerGitRepositoryRoute } from '@/lib/api/contracts/admin';
import { deleteGitRepository, listGitRepositories, registerGitRepository } from '@/lib/services/compose';
import { webhookDeliveriesRoute, deleteWebhookRoute, getWebhookRoute, testWebhookRoute, createWebhookRoute, listWebhooksRoute } from '@/lib/api/contracts/guarded';
import { listWebhookDeliveries, deleteWebhook, getWebhook, sendTestWebhook, createWebhook, listWebhooks } from '@/lib/services/webhooks';

// /api/v1/git_repositories/[name]
/** Admin: removes a registered repository. */
const onDeleteGitRepository = handle(deleteGitRepositoryRoute, async (_req, { access, params, requestId }) => {
  await deleteGitRepository(access, params.name, requestId);
  return json({ name: params.name, deleted: true });
});

// /api/v1/git_repositories
/** Registered git repositories: names for everyone (what compose may name), URLs for admins. Credentials are never returned. */
const onListGitRepositories = handle(listGitRepositoriesRoute, async (_req, { access }) => json(await listGitRepositories(access)));

/** Admin: POST { name, url, username?, secret? } registers (201) or replaces (200) a repository. */
const onRegisterGitRepository = handle(registerGitRepositoryRoute, async (_req, { access, body, requestId }) => {
  const { repository, created } = await registerGitRepository(access, body, requestId);
  return json(repository, { status: created ? 201 : 200 });
});

// /api/v1/webhooks/[id]/deliveries
const onWebhookDeliveries = handle(webhookDeliveriesRoute, async (_req, { access, params, query }) => json({ deliveries: await listWebhookDeliveries(access, params.id, query.limit ?? 100) }));

// /api/v1/webhooks/[id]
const onGetWebhook = handle(getWebhookRoute, async (_req, { access, params }) => json({ webhook: await getWebhook(access, params.id) }));

const onDeleteWebhook = handle(deleteWebhookRoute, async (_req, { access, params, requestId }) => json(await deleteWebhook(access, params.id, requestId)));

// /api/v1/webhooks/[id]/test
/** POST — queue a `test` event to this subscription (admin) → 202. */
const onTestWebhook = handle(testWebhookRoute, async (_req, { access, params, requestId }) => json(await sendTestWebhook(access, params.id, requestId), { status: 202 }));

// /api/v1/webhooks
const onListWebhooks = handle(listWebhooksRoute, async (_req, { access }) => json({ webhooks: await listWebhooks(access) }));

/** POST { name, url, events, secret?, slack? } (admin) → 201 { webhook, secret }. */
const onCreateWebhook = handle(createWebhookRoute, async (_req, { access, body, requestId }) => json(await createWebhook(access, body, requestId), { status: 201 }));

/** The rows of webhooks: one per contract. */
export const webhooksRoutes: ApiRoute[] = [onDeleteGitRepository, onListGitRepositories, onRegisterGitRepository, onWebhookDeliveries, onGetWebhook, onDeleteWebhook, onTestWebhook, onListWebhooks, onCreateWebhook];
