/**
 * The artifact server: sandboxes (file upload sessions), the content-addressed
 * file store, and immutable cookbook artifacts, as Chef Server serves them to
 * `chef push` and chef-client. Files are content-addressed by MD5 and kept in
 * the file store (issue 46, lib/services/cookbooks/: the database or an S3
 * bucket), shared by every instance; their StoredFile rows say which exist.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { db, type Tx } from '@/lib/db/client';
import { assertCan, can, type Actor } from '@/lib/auth/permissions';
import { AppError, badRequest, chefStringError, conflict, forbidden, notFound, type FieldError } from '@/lib/errors';
import { jsonEqual, stableJson } from '@/lib/domain';
import { audit, transaction } from '@/lib/services/funnel';
import { claimFiles, releaseFiles, storeFile } from './files';
import type { StoredObject } from '@/lib/db/file-store/file-store';
import { openFile } from '@/lib/db/file-store/stored-files';

const MD5 = /^[0-9a-f]{32}$/;
/** Chef's cookbook-name rule. */
const COOKBOOK_NAME = /^[.A-Za-z0-9_-]{1,255}$/;
/** Policyfile identifiers are hex digests (SHA-1 of the cookbook's content, 40 characters). */
const IDENTIFIER = /^[0-9a-f]{40,64}$/;
/** Artifacts take any dotted version, prerelease fields included (`1.2.3.beta.5`): identifiers, not versions, pin them. */
const VERSION = /^\d+(\.\d+){1,2}([.\-+][0-9A-Za-z.\-+]*)?$/;
/** Segments of v0/v1 manifests, which API v2 folds into `all_files`. */
import { manifestFiles, type ManifestFile } from '@/lib/domain/cookbook/manifest';

export const SANDBOX_TTL_MS = 24 * 60 * 60 * 1000;

function assertUpload(actor: Actor) {
  assertCan(actor, 'cookbook.upload');
}

/** Clients (nodes) and signed-in users may read artifacts and files; the validator may not. */
export function assertCookbookRead(actor: Actor) {
  assertCan(actor, 'cookbook.read');
}

// ----------------------------------------------------------------- sandboxes

export interface SandboxDto {
  id: string;
  checksums: Record<string, { needs_upload: boolean }>;
}

/** POST /sandboxes {checksums: {md5: null}}: which files the server still needs. */
export async function createSandbox(r: Actor, body: unknown, now = new Date()): Promise<SandboxDto> {
  assertUpload(r);
  const raw = (body as { checksums?: unknown } | null)?.checksums;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest("Field 'checksums' missing", [{ path: '/checksums', message: 'checksums must be an object of MD5 checksums' }]);
  const sums = Object.keys(raw);
  // Chef's tools send {md5: null} for every file: anything else, or nothing at all, is not an upload request.
  if (!sums.length || Object.values(raw).some((v) => v !== null)) throw badRequest('Bad checksums!', [{ path: '/checksums', message: 'an object of MD5 checksums, each null' }]);
  const bad = sums.filter((c) => !MD5.test(c));
  if (bad.length) throw badRequest(`Invalid checksum '${bad[0]}': checksums are MD5 digests in lowercase hex`, bad.map((c) => ({ path: `/checksums/${c}`, message: 'not an MD5 hex digest' })));
  // Issue 28: bounded, so the answer (an upload URL per file) stays proportionate.
  const max = maxUploadFiles();
  if (sums.length > max) throw new AppError('too_large', `A sandbox holds at most ${max} files (SANDBOX_MAX_FILES); this one names ${sums.length}. Upload in several sandboxes.`, [{ path: '/checksums', message: `at most ${max} checksums` }]);
  const id = randomBytes(16).toString('hex');
  const created = await transaction(async (tx) => {
    // Issue 46: the files held are claimed for this sandbox (a collector no longer takes them); the others are uploaded.
    const have = await claimFiles(tx, sums, now);
    await tx.sandbox.create({ data: { id, checksums: JSON.stringify(sums), createdById: r.userId, createdBy: r.email, createdAt: now, expiresAt: new Date(now.getTime() + SANDBOX_TTL_MS) } });
    return { id, checksums: Object.fromEntries(sums.map((c) => [c, { needs_upload: !have.has(c) }])) };
  });
  // Abandoned sandboxes expire: a few are collected here (their unused files with them), the rest by the background job.
  await collectExpiredUploads(now, 3);
  return created;
}

/** SANDBOX_MAX_FILES (default 10000): the most files one sandbox or one artifact manifest may name. */
export function maxUploadFiles(): number {
  const n = Number(process.env.SANDBOX_MAX_FILES);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 10_000;
}

/**
 * Issue 28: uploaded files are collected once their sandbox has expired,
 * unless an artifact or a live sandbox names them (content-addressed files
 * are shared). Up to `limit` expired sandboxes per call, oldest first, each
 * in one transaction. Returns how many files were left unreferenced (orphans,
 * collected from the store after a grace period: lib/services/cookbooks/files.ts).
 */
export async function collectExpiredUploads(now = new Date(), limit = 50): Promise<number> {
  const expired = await db().sandbox.findMany({ where: { expiresAt: { lt: now } }, orderBy: { expiresAt: 'asc' }, take: limit, select: { id: true, checksums: true } });
  let removed = 0;
  for (const sb of expired) {
    removed += await transaction(async (tx) => {
      const { count } = await tx.sandbox.deleteMany({ where: { id: sb.id } });
      if (count !== 1) return 0; // another instance collected it
      // Issue 46: files nothing else names become orphans, removed from the store after the grace period (collectFiles).
      return releaseFiles(tx, JSON.parse(sb.checksums) as string[], now);
    });
  }
  return removed;
}

async function openSandbox(id: string, now: Date) {
  const sb = await db().sandbox.findUnique({ where: { id }, select: { id: true, checksums: true, completed: true, expiresAt: true, createdById: true, createdBy: true } });
  if (!sb || sb.expiresAt < now) throw notFound(`No such sandbox '${id}'`);
  return { ...sb, sums: JSON.parse(sb.checksums) as string[] };
}

/**
 * PUT <upload url>: the raw bytes of one file (a buffer, or a stream of `size` bytes, null when chunked), streamed
 * to the file store; its MD5 must be the checksum (and Content-MD5, when sent), checked before anything can name it.
 */
export async function uploadSandboxFile(r: Actor, sandboxId: string, checksum: string, body: Buffer | Readable, contentMd5: string | null | undefined, now = new Date(), size: number | null = null) {
  assertUpload(r);
  const sb = await openSandbox(sandboxId, now);
  if (sb.completed) throw conflict(`Sandbox '${sandboxId}' is already committed`);
  if (!sb.sums.includes(checksum)) throw notFound(`Checksum ${checksum} is not part of sandbox '${sandboxId}'`);
  await storeFile(checksum, body, { size, contentMd5 });
}

/** PUT /sandboxes/:id {is_completed: true}: succeeds only when every file arrived. */
export async function commitSandbox(r: Actor, id: string, body: unknown, now = new Date()) {
  assertUpload(r);
  if ((body as { is_completed?: unknown } | null)?.is_completed !== true) throw badRequest("Field 'is_completed' must be true", [{ path: '/is_completed', message: 'must be true' }]);
  const sb = await openSandbox(id, now);
  const done = await transaction(async (tx) => {
    // Issue 46: only files stored (verified) count; claimed in the commit's transaction, so none is collected meanwhile.
    const have = await claimFiles(tx, sb.sums, now);
    const missing = sb.sums.filter((c) => !have.has(c));
    if (missing.length) throw badRequest(`Cannot update sandbox ${id}: the following checksums have not been uploaded: ${missing.join(', ')}`, missing.map((c) => ({ path: `/checksums/${c}`, message: 'not uploaded' })));
    return tx.sandbox.update({ where: { id }, data: { completed: true }, select: { createdAt: true } });
  });
  return { guid: id, name: id, checksums: sb.sums, create_time: done.createdAt.toISOString().replace(/\.\d{3}Z$/, '+00:00'), is_completed: true };
}

// ----------------------------------------------------------------- artifacts

export { manifestFiles, type ManifestFile } from '@/lib/domain/cookbook/manifest';

function validateManifest(name: string, identifier: string, m: unknown): { manifest: Record<string, unknown>; version: string; files: ManifestFile[] } {
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw badRequest('invalid JSON', [{ path: '', message: 'Body must be a JSON object' }]);
  const o = m as Record<string, unknown>;
  const errors: FieldError[] = [];
  // erchef's texts (chef_cookbook_version / chef_wm_cookbook_artifact_version).
  if (!COOKBOOK_NAME.test(name)) errors.push({ path: '/name', message: "Field 'name' invalid" });
  const cbName = o.cookbook_name ?? o.name;
  if (typeof cbName !== 'string' || (cbName !== name && !String(o.name ?? '').startsWith(`${name}-`))) errors.push({ path: '/name', message: `Field 'name' invalid : ${name} does not match ${String(cbName)}` });
  if (!IDENTIFIER.test(identifier)) errors.push({ path: '/identifier', message: "Field 'identifier' invalid" });
  if (o.identifier !== undefined && o.identifier !== identifier) errors.push({ path: '/identifier', message: `Field 'identifier' invalid : ${identifier} does not match ${String(o.identifier)}` });
  const version = (o.version ?? (o.metadata as Record<string, unknown> | undefined)?.version) as unknown;
  if (typeof version !== 'string' || !VERSION.test(version)) errors.push({ path: '/version', message: "Field 'version' invalid" });
  const files = manifestFiles(o);
  const max = maxUploadFiles();
  if (files.length > max) throw new AppError('too_large', `A cookbook artifact may list at most ${max} files (SANDBOX_MAX_FILES); this one lists ${files.length}`, [{ path: '/all_files', message: `at most ${max} files` }]);
  files.forEach((f, i) => {
    if (!MD5.test(f.checksum)) errors.push({ path: `/all_files/${i}/checksum`, message: `File '${f.name}' has an invalid checksum` });
    if (!f.name || f.name.length > 1024) errors.push({ path: `/all_files/${i}/name`, message: 'File name is required' });
  });
  if (errors.length) throw badRequest(errors[0].message, errors);
  const { url: _u, ...manifest } = o;
  return { manifest, version: version as string, files };
}

/** PUT /cookbook_artifacts/:name/:identifier: 201 new; 200 the same manifest again; 409 another manifest at that identifier. */
export async function putArtifact(r: Actor, name: string, identifier: string, body: unknown): Promise<{ status: 200 | 201; manifest: Record<string, unknown> }> {
  assertUpload(r);
  const { manifest, version, files } = validateManifest(name, identifier, body);
  const text = stableJson(manifest);
  return transaction(async (tx) => {
    const sums = [...new Set(files.map((f) => f.checksum))];
    // Issue 46: a manifest names only files stored (verified); claiming them keeps a collector away.
    const have = await claimFiles(tx, sums);
    const missing = sums.filter((c) => !have.has(c));
    if (missing.length) {
      throw new AppError('bad_request', "Manifest has a checksum that hasn't been uploaded.", missing.map((c) => ({ path: '/all_files', message: `checksum ${c} not uploaded` })));
    }
    const existing = await tx.cookbookArtifact.findUnique({ where: { name_identifier: { name, identifier } }, select: { manifest: true } });
    if (existing) {
      // Compared as JSON too: a manifest stored before keys were sorted by code point may differ only in key order.
      if (existing.manifest !== text && !jsonEqual(JSON.parse(existing.manifest), JSON.parse(text))) throw chefStringError('conflict', 'Cookbook artifact already exists');
      return { status: 200, manifest };
    }
    const actor = r;
    await tx.cookbookArtifact.create({ data: { name, identifier, version, manifest: text, createdById: actor.userId, createdBy: actor.email } });
    await audit(tx, actor, { action: 'artifact.upload', targetType: 'artifact', target: `${name}@${identifier}`, after: { version, files: files.length } });
    return { status: 201, manifest };
  });
}

export async function getArtifact(r: Actor, name: string, identifier: string): Promise<{ manifest: Record<string, unknown>; files: ManifestFile[] }> {
  assertCookbookRead(r);
  const a = await db().cookbookArtifact.findUnique({ where: { name_identifier: { name, identifier } }, select: { manifest: true } });
  if (!a) throw notFound('not_found');
  const manifest = JSON.parse(a.manifest) as Record<string, unknown>;
  return { manifest, files: manifestFiles(manifest) };
}

/** { name: [identifier…] } in upload order, for all artifacts or one cookbook. */
export async function listArtifacts(r: Actor, name?: string): Promise<Map<string, string[]>> {
  assertCookbookRead(r);
  const rows = await db().cookbookArtifact.findMany({ where: name ? { name } : {}, orderBy: [{ name: 'asc' }, { createdAt: 'asc' }, { identifier: 'asc' }], select: { name: true, identifier: true } });
  const out = new Map<string, string[]>();
  for (const row of rows) out.set(row.name, [...(out.get(row.name) ?? []), row.identifier]);
  if (name && !out.size) throw notFound(`Cannot find a cookbook named ${name}`);
  return out;
}

/** DELETE: refused (409) while a revision that some stage runs pins this artifact. */
/**
 * Issue 28: an artifact that a pending promotion request would move a stage to, or that a revision a stage ran
 * (a rollback target, from the pointer history) pins, is not deleted: the request or the rollback would then
 * point nodes at a cookbook that is gone.
 */
async function assertNotNeeded(tx: Tx, name: string, identifier: string): Promise<void> {
  const candidates = await tx.policyRevision.findMany({ where: { cookbookDigest: { contains: `|${identifier}"` } }, select: { id: true, revisionId: true, cookbookDigest: true, policy: { select: { name: true } } } });
  const pinning = candidates.filter((c) => {
    const digest = c.cookbookDigest ? (JSON.parse(c.cookbookDigest) as Record<string, string>) : {};
    return Object.prototype.hasOwnProperty.call(digest, name) && digest[name].split('|')[1] === identifier;
  });
  if (!pinning.length) return;
  const pending = await tx.promotionRequest.findFirst({ where: { status: 'pending', toRevisionPk: { in: pinning.map((p) => p.id) } }, select: { id: true, groupName: true, policyName: true } });
  if (pending) throw conflict(`Cookbook artifact ${name} ${identifier} is pinned by the revision pending promotion request ${pending.id} (${pending.policyName} into ${pending.groupName}) would apply; it cannot be deleted while the request is open.`);
  const ran = await tx.pointerHistory.findFirst({
    where: { OR: pinning.flatMap((p) => [{ policyName: p.policy.name, toRevisionId: p.revisionId }, { policyName: p.policy.name, fromRevisionId: p.revisionId }]) },
    select: { groupName: true, policyName: true },
  });
  if (ran) throw conflict(`Cookbook artifact ${name} ${identifier} is pinned by a revision ${ran.groupName} ran for ${ran.policyName} (a rollback target); it cannot be deleted while that revision exists.`);
}

export async function deleteArtifact(r: Actor, name: string, identifier: string): Promise<Record<string, unknown>> {
  assertCan(r, 'cookbook.delete');
  return transaction(async (tx) => {
    const a = await tx.cookbookArtifact.findUnique({ where: { name_identifier: { name, identifier } }, select: { id: true, manifest: true, createdById: true } });
    if (!a) throw notFound('not_found');
    // Issue 28: a team's artifacts are deleted by that team (a team of the uploader) or an administrator.
    const uploaderTeams = a.createdById ? (await tx.teamMember.findMany({ where: { userId: a.createdById }, select: { teamId: true } })).map((m) => m.teamId) : [];
    if (!can(r, 'artifact.delete', { ownerTeamIds: uploaderTeams })) throw forbidden(`You may not delete cookbook artifact ${name} ${identifier}: only a team of the one who uploaded it, or an administrator, may.`);
    const active = await tx.groupPolicy.findMany({ select: { group: { select: { name: true } }, policy: { select: { name: true } }, revision: { select: { cookbookDigest: true } } } });
    const pinning = active.filter((g) => {
      const digest = g.revision.cookbookDigest ? (JSON.parse(g.revision.cookbookDigest) as Record<string, string>) : {};
      return Object.prototype.hasOwnProperty.call(digest, name) && digest[name].split('|')[1] === identifier;
    });
    if (pinning.length) {
      throw conflict(`Cookbook artifact ${name} ${identifier} is pinned by what ${pinning.map((p) => `${p.group.name} runs for ${p.policy.name}`).join(', ')}; point those stages elsewhere first.`);
    }
    await assertNotNeeded(tx, name, identifier);
    await tx.cookbookArtifact.delete({ where: { id: a.id } });
    // Files no other artifact or live sandbox names go with it (Chef cleans up unused checksum data too): issue 46,
    // they become orphans, removed from the file store after a grace period unless an upload names them again.
    const manifest = JSON.parse(a.manifest) as Record<string, unknown>;
    const orphans = await releaseFiles(tx, manifestFiles(manifest).map((f) => f.checksum));
    await audit(tx, r, { action: 'artifact.delete', targetType: 'artifact', target: `${name}@${identifier}`, after: { files_removed: orphans } });
    return JSON.parse(a.manifest);
  });
}

/** A stored file's bytes, for callers that may read cookbooks. */
export async function readCookbookFile(r: Actor, checksum: string): Promise<StoredObject> {
  assertCookbookRead(r);
  return readPresignedCookbookFile(checksum);
}

/**
 * A cookbook file by a pre-signed URL (lib/auth/presigned-url.ts): the URL is the
 * capability, handed out only with a manifest to an actor `cookbook.read`
 * allowed; 404 once no artifact keeps the file.
 */
export async function readPresignedCookbookFile(checksum: string): Promise<StoredObject> {
  if (!MD5.test(checksum)) throw notFound(`No file with checksum ${checksum}`);
  const f = await openFile(checksum);
  if (!f) throw notFound(`No file with checksum ${checksum}`);
  return f;
}
