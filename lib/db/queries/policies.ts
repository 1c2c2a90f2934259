import type { Access, Actor } from '@/lib/auth/permissions';
import { can } from '@/lib/auth/permissions';
import { notFound } from '@/lib/errors';
import { db } from '../client';
import { compareText, sortedBy } from '../order';
import { policyDocument } from './chef-read-path';

export const apiBase = '/api/v1';

/** GET /policies — Chef's shape: { name: { uri, revisions: { id: {} } } }. */
export async function chefPolicyList() {
  const policies = await db().policy.findMany({ orderBy: { name: 'asc' }, select: { name: true, revisions: { select: { revisionId: true }, orderBy: { createdAt: 'asc' } } } }).then(sortedBy((p) => p.name));
  return Object.fromEntries(
    policies.map((p) => [p.name, { uri: `${apiBase}/policies/${p.name}`, revisions: Object.fromEntries(p.revisions.map((r) => [r.revisionId, {}])) }]),
  );
}

/** GET /policies/:name — { revisions: { id: {} } }, 404 when missing. */
export async function chefPolicy(name: string) {
  const p = await db().policy.findUnique({ where: { name }, select: { revisions: { select: { revisionId: true }, orderBy: { createdAt: 'asc' } } } });
  if (!p) throw notFound(`Cannot load policy ${name}`);
  return { revisions: Object.fromEntries(p.revisions.map((r) => [r.revisionId, {}])) };
}

/**
 * The stored document of a revision with `policy_group_list` appended to the
 * stored bytes (no re-serialisation), limited to the stages the reader may view.
 */
export async function revisionDocumentWithGroups(actor: Actor, policy: string, revisionId: string): Promise<string> {
  const rev = await db().policyRevision.findFirst({
    where: { revisionId, policy: { name: policy } },
    select: { document: true, groups: { select: { group: { select: { name: true, position: true } } } } },
  });
  if (!rev) throw notFound(`Cannot load policy ${policy} with revision_id ${revisionId}`);
  const groups = rev.groups
    .map((g) => g.group)
    .filter((g) => can(actor, 'stage.view', { stage: g.name }))
    .sort((a, b) => a.position - b.position)
    .map((g) => g.name);
  return appendField(rev.document, 'policy_group_list', groups);
}

/** The stored bytes of a revision. */
export async function revisionDocument(policy: string, revisionId: string): Promise<string> {
  const rev = await db().policyRevision.findFirst({ where: { revisionId, policy: { name: policy } }, select: { document: true } });
  if (!rev) throw notFound(`Cannot load policy ${policy} with revision_id ${revisionId}`);
  return rev.document;
}

/** Appends `"key": value` to a JSON object text, keeping every byte before it. */
export function appendField(objectText: string, key: string, value: unknown): string {
  const end = objectText.lastIndexOf('}');
  const body = objectText.slice(0, end).trimEnd();
  const empty = body.endsWith('{');
  return `${body}${empty ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}}${objectText.slice(end + 1)}`;
}

/** Revisions of a policy active in no group (the RFC's orphans). */
export async function orphanRevisions(policy: string) {
  const p = await db().policy.findUnique({ where: { name: policy }, select: { id: true } });
  if (!p) throw notFound(`Cannot load policy ${policy}`);
  const revs = await db().policyRevision.findMany({
    where: { policyId: p.id, groups: { none: {} } },
    orderBy: { createdAt: 'asc' },
    select: { revisionId: true, createdAt: true },
  });
  return revs;
}

/** The stored document a group runs for a policy: the bytes nodes fetch (with `node`: the node's ring's revision, issue 30). */
export async function groupPolicyBytes(group: string, policy: string, node?: string | null): Promise<Buffer> {
  const document = await policyDocument(group, policy, node);
  if (document === null) throw notFound(`Cannot load policy ${policy} in policy group ${group}`);
  return document;
}

/** groupPolicyDocument as text. */
export async function groupPolicyDocument(group: string, policy: string): Promise<string> {
  return (await groupPolicyBytes(group, policy)).toString('utf8');
}

/** GET /policy_groups — { group: { uri, policies?: { policy: { revision_id } } } } for viewable stages. */
export async function chefGroupList(access: Access) {
  const groups = await db().policyGroup.findMany({
    orderBy: [{ position: 'asc' }, { name: 'asc' }],
    select: { name: true, position: true, description: true, openEnrollment: true, policies: { select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } } },
  });
  return Object.fromEntries(groups.filter((g) => can(access, 'stage.view', { stage: g.name })).map((g) => [g.name, chefGroupBody(g)]));
}

function chefGroupBody(g: { name: string; position: number; description: string; openEnrollment: boolean; policies: { policy: { name: string }; revision: { revisionId: string } }[] }) {
  const body: Record<string, unknown> = { uri: `${apiBase}/policy_groups/${g.name}`, position: g.position, description: g.description, open_enrollment: g.openEnrollment };
  if (g.policies.length) {
    body.policies = Object.fromEntries(
      [...g.policies].sort((a, b) => (a.policy.name < b.policy.name ? -1 : 1)).map((p) => [p.policy.name, { revision_id: p.revision.revisionId }]),
    );
  }
  return body;
}

export async function chefGroup(name: string) {
  const g = await db().policyGroup.findUnique({
    where: { name },
    select: { name: true, position: true, description: true, openEnrollment: true, policies: { select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } } },
  });
  if (!g) throw notFound(`Cannot load policy group ${name}`);
  return chefGroupBody(g);
}

/** The revision id a stage runs for a policy, or null. */
export async function activeRevisionId(group: string, policy: string): Promise<string | null> {
  const row = await db().groupPolicy.findFirst({ where: { group: { name: group }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } });
  return row?.revision.revisionId ?? null;
}

export async function policyNames(): Promise<string[]> {
  return (await db().policy.findMany({ orderBy: { name: 'asc' }, select: { name: true } })).map((p) => p.name).sort(compareText);
}

/** Stage names in promotion order. */
export async function stageNames(): Promise<string[]> {
  return (await db().policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { name: true } })).map((g) => g.name);
}

/** The stages the reader may view, in stage order: the filter lives in the query, not in each page. */
export async function viewableStageNames(access: Access): Promise<string[]> {
  return (await stageNames()).filter((stage) => can(access, 'stage.view', { stage }));
}

/** Policies and their revision ids in upload order (all, or one by name): the Chef surface builds its bodies from these. */
export async function chefPolicyRows(name?: string): Promise<{ name: string; revisions: string[] }[]> {
  const rows = await db().policy.findMany({
    where: name === undefined ? {} : { name },
    orderBy: { name: 'asc' },
    select: { name: true, revisions: { select: { revisionId: true }, orderBy: { createdAt: 'asc' } } },
  }).then(sortedBy((p) => p.name));
  return rows.map((p) => ({ name: p.name, revisions: p.revisions.map((r) => r.revisionId) }));
}

/** Stages in promotion order (all, or one by name) with the revision each policy runs there. */
export async function chefGroupRows(name?: string): Promise<{ name: string; policies: { policy: string; revisionId: string }[] }[]> {
  const rows = await db().policyGroup.findMany({
    where: name === undefined ? {} : { name },
    orderBy: [{ position: 'asc' }, { name: 'asc' }],
    select: { name: true, policies: { select: { policy: { select: { name: true } }, revision: { select: { revisionId: true } } } } },
  });
  return rows.map((g) => ({
    name: g.name,
    policies: g.policies.map((p) => ({ policy: p.policy.name, revisionId: p.revision.revisionId })).sort((a, b) => (a.policy < b.policy ? -1 : a.policy > b.policy ? 1 : 0)),
  }));
}
