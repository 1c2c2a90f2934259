import { createHash } from 'node:crypto';
import type { Tx } from '@/lib/db/client';
import type { AuditActor } from './audit';
import { computeRevisionId, jsonDepth, jsonEqual, serializeJson, stableJson, validateLock, NAME_PATTERN, type PolicyLock } from '@/lib/domain';
import { AppError, conflict } from '@/lib/errors';

import { assertStorable, MAX_DEPTH } from './limits';

export { MAX_DEPTH };

/** Issue 48: `rebuild`, a dependent the console composed again on a moved include (lib/services/dependents); issue 42: `import`. */
export type RevisionOrigin = 'upload' | 'compose' | 'cookbook-promotion' | 'seed' | 'import' | 'rebuild';

/**
 * Fields a Chef Server adds to a lock document it serves (`policy_group_list`
 * on revision reads, `policy_group` in some clients' uploads): they are not
 * part of the lock, so they are removed before it is validated, compared and
 * stored, and `chef undelete` can put back what `chef delete-policy-group`
 * saved. Only those top-level members are cut; every other byte is kept.
 */
export const SERVER_ONLY_FIELDS = ['policy_group_list', 'policy_group'];

export function withoutServerFields(text: string): string {
  if (!text.includes('"policy_group')) return text;
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const skipString = () => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return text.slice(start, i);
  };
  const skipValue = () => {
    let depth = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        skipString();
        if (depth === 0) return;
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) return;
        depth--;
        if (depth === 0) {
          i++;
          return;
        }
      } else if (depth === 0 && c === ',') return;
      i++;
    }
  };
  ws();
  if (text[i] !== '{') return text;
  const open = ++i;
  const members: { text: string; key: string }[] = [];
  for (;;) {
    ws();
    if (text[i] === '}' || i >= text.length) break;
    const start = i;
    if (text[i] !== '"') return text;
    let key: string;
    try {
      key = JSON.parse(skipString());
    } catch {
      return text;
    }
    ws();
    if (text[i] !== ':') return text;
    i++;
    ws();
    skipValue();
    members.push({ text: text.slice(start, i).trimEnd(), key });
    ws();
    if (text[i] === ',') i++;
  }
  if (!members.some((m) => SERVER_ONLY_FIELDS.includes(m.key))) return text;
  const kept = members.filter((m) => !SERVER_ONLY_FIELDS.includes(m.key)).map((m) => m.text);
  return text.slice(0, open) + kept.join(',') + text.slice(i);
}

/**
 * A revision document that passed the lock validator here, with the lock it
 * parses to. Only `checkRevision` makes one (a module-private registry, not a
 * type cast, proves it), and `storeRevision` stores nothing else: every path
 * that stores a revision (upload, PUT on a stage, Chef PUT, compose, cookbook
 * promotion, seed) goes through the same validator on the bytes it stores.
 */
export interface CheckedRevision {
  readonly text: string;
  readonly lock: PolicyLock;
  readonly policyName: string;
}
const checked = new WeakSet<CheckedRevision>();

export interface CheckOptions {
  /** 400 for a document the client sent (the default), 422 for one the server built from valid input (compose, promotion). */
  code?: 'bad_request' | 'unprocessable';
  /** How the message names the document ("The composed lock"). */
  what?: string;
}

/**
 * Parses and validates a revision document for policy `policyName`: every
 * violation of the lock rules is listed with its JSON pointer (a 4xx, nothing
 * stored), and the lock's name must be the policy's.
 */
export function checkRevision(text: string, policyName: string, opts: CheckOptions = {}): CheckedRevision {
  const code = opts.code ?? 'bad_request';
  const what = opts.what ?? 'Document';
  if (jsonDepth(text, MAX_DEPTH) > MAX_DEPTH) {
    throw new AppError(code, `${what} nests deeper than ${MAX_DEPTH} levels`, [{ path: '', message: `Nesting deeper than ${MAX_DEPTH} levels is refused` }]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new AppError(code, `${what === 'Document' ? 'Body' : what} is not valid JSON: ${(e as Error).message}`, [{ path: '', message: 'Body must be a JSON object' }]);
  }
  const result = validateLock(parsed);
  const errors = result.ok ? [] : [...result.errors];
  if (!NAME_PATTERN.test(policyName) && !errors.some((e) => e.path === '/name')) {
    errors.push({ path: '/name', message: `Policy name '${policyName}' in the URL may contain only letters, digits, '.', '_', ':' and '-'` });
  } else if (result.ok && result.lock.name !== policyName) {
    errors.push({ path: '/name', message: `Field 'name' invalid: '${result.lock.name}' must equal the policy name in the URL, '${policyName}'` });
  }
  if (errors.length) {
    const message = what === 'Document' ? errors[0].message : `${what} is not a valid lock: ${errors[0].message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
    throw new AppError(code, message, errors);
  }
  const rev: CheckedRevision = Object.freeze({ text, lock: (result as { lock: PolicyLock }).lock, policyName });
  checked.add(rev);
  return rev;
}

/** { cookbook: "version|identifier" } as JSON, for cheap stage-to-stage comparisons. */
export function cookbookDigest(lock: PolicyLock): string {
  // No prototype: a cookbook named '__proto__' is a key like any other (issue 17, item 20).
  const out: Record<string, string> = Object.create(null);
  for (const [name, cb] of Object.entries(lock.cookbook_locks)) out[name] = `${cb.version}|${cb.identifier}`;
  return JSON.stringify(out);
}

/** Identity of a document's content, independent of key order and whitespace. */
export function contentHash(lock: PolicyLock): string {
  return createHash('sha256').update(stableJson(lock)).digest('hex');
}

export interface StoredRevision {
  id: string;
  policyId: string;
  revisionId: string;
  created: boolean;
}

/**
 * Stores a revision unless the same content is already there under that id.
 * The same (policy, revision_id) with different content is a 409 (Chef
 * silently keeps the old one; chef-server issue 653). Runs inside the
 * caller's transaction; the caller audits.
 */
export async function storeRevision(
  tx: Tx,
  actor: AuditActor | null,
  policy: { id: string; name: string },
  revision: CheckedRevision,
  origin: RevisionOrigin,
  originDetail?: unknown,
  createdAt?: Date,
): Promise<StoredRevision> {
  // The funnel: nothing reaches the table without the validator's approval of these very bytes.
  if (!checked.has(revision)) throw new Error('storeRevision: the document was not checked by checkRevision');
  if (revision.policyName !== policy.name) throw new Error(`storeRevision: a revision checked for '${revision.policyName}' cannot be stored under '${policy.name}'`);
  const { text, lock } = revision;
  const policyId = policy.id;
  const policyName = policy.name;
  // Every origin meets the limits an upload meets, so whatever is stored can be uploaded again.
  assertStorable(text);
  const hash = contentHash(lock);
  const existing = await tx.policyRevision.findUnique({
    where: { policyId_revisionId: { policyId, revisionId: lock.revision_id } },
    select: { id: true, contentHash: true },
  });
  // A hash written by an older serializer (key order before code-point order) is checked against the content itself.
  const sameContent = async (id: string) => jsonEqual(JSON.parse((await tx.policyRevision.findUniqueOrThrow({ where: { id }, select: { document: true } })).document), lock);
  if (existing) {
    if (existing.contentHash !== hash && !(await sameContent(existing.id))) {
      throw conflict(`Policy '${policyName}' with revision_id '${lock.revision_id}' already exists.`, {
        reason: 'A revision with this id exists with different content; revisions are immutable.',
      });
    }
    return { id: existing.id, policyId, revisionId: lock.revision_id, created: false };
  }
  const computed = computeRevisionId(text);
  const created = await tx.policyRevision.create({
    data: {
      policyId,
      revisionId: lock.revision_id,
      document: text,
      contentHash: hash,
      computedRevisionId: computed,
      cookbookCount: Object.keys(lock.cookbook_locks).length,
      cookbookDigest: cookbookDigest(lock),
      // Issue 48: the direct includes, for dependents at any depth without parsing documents.
      includeDigest: JSON.stringify(lock.included_policy_locks ?? []),
      origin,
      originDetail: originDetail === undefined ? null : serializeJson(originDetail),
      createdById: actor?.userId ?? null,
      createdByEmail: actor?.email ?? null,
      ...(createdAt ? { createdAt } : {}),
    },
    select: { id: true },
  });
  return { id: created.id, policyId, revisionId: lock.revision_id, created: true };
}
