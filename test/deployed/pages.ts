/**
 * Every page of the console (app/**\/page.tsx), as URLs: route groups dropped, dynamic segments filled from the
 * deployment's seeded data (read from its database, as the pages themselves read it), the catch-all as a path
 * nothing serves (it must answer the not-found page, 404).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createDb } from '@/lib/db/client';
import { ROOT } from './deployment';

export interface ConsolePage {
  /** The file it comes from, e.g. app/(console)/nodes/[name]/page.tsx */
  file: string;
  /** The URL path visited (with a query where the page wants one). */
  url: string;
  /** 404 for the catch-all; otherwise a page that must not fail. */
  expect: 'page' | 'not-found';
}

function pageFiles(dir = path.join(ROOT, 'app')): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...pageFiles(p));
    else if (e.name === 'page.tsx' || e.name === 'page.ts') out.push(path.relative(ROOT, p).split(path.sep).join('/'));
  }
  return out.sort();
}

/** Values for the dynamic segments, from the seeded (and by then exercised) database. */
async function segmentValues(databaseUrl: string): Promise<{ values: Record<string, string>; diffQuery: string }> {
  const client = createDb(databaseUrl);
  try {
    const node = await client.node.findFirst({ where: { groupId: { not: null } }, orderBy: { name: 'asc' }, select: { name: true } });
    const revision = await client.policyRevision.findFirst({ where: { policy: { name: 'webapp' } }, orderBy: { createdAt: 'desc' }, select: { revisionId: true, policy: { select: { name: true } } } });
    const artifacts = await client.cookbookArtifact.findMany({ orderBy: [{ name: 'asc' }, { createdAt: 'asc' }], select: { name: true, identifier: true } });
    const byName = new Map<string, string[]>();
    for (const a of artifacts) byName.set(a.name, [...(byName.get(a.name) ?? []), a.identifier]);
    const two = [...byName].find(([, ids]) => ids.length >= 2) ?? [...byName][0];
    const item = await client.dataBagItem.findFirst({ where: { kind: 'plain' }, orderBy: { itemId: 'asc' }, select: { itemId: true, bag: { select: { name: true } } } });
    const request = await client.promotionRequest.findFirst({ orderBy: { createdAt: 'asc' }, select: { id: true } });
    const ring = await client.ringRollout.findFirst({ orderBy: { createdAt: 'asc' }, select: { id: true } });
    const webhook = await client.webhookSubscription.findFirst({ orderBy: { createdAt: 'asc' }, select: { id: true } });
    const found: Record<string, string | undefined> = {
      'nodes/[name]': node?.name,
      'policies/[name]': revision?.policy.name,
      'revisions/[rev]': revision?.revisionId,
      'artifacts/[name]': two?.[0],
      '[name]/[identifier]': two?.[1][0],
      'data-bags/[bag]': item?.bag.name,
      '[bag]/[item]': item?.itemId,
      'requests/[id]': request?.id,
      'rings/[id]': ring?.id,
      'webhooks/[id]': webhook?.id,
    };
    const diffQuery = two && two[1].length >= 2 ? `?from=${two[1][0]}&to=${two[1][1]}` : '';
    const missing = Object.entries(found).filter(([, v]) => v === undefined).map(([k]) => k);
    if (missing.length) throw new Error(`no seeded data to open the pages at ${missing.join(', ')}`);
    return { values: found as Record<string, string>, diffQuery };
  } finally {
    await client.$disconnect();
  }
}

export async function consolePages(databaseUrl: string): Promise<ConsolePage[]> {
  const { values: v, diffQuery } = await segmentValues(databaseUrl);
  return pageFiles().map((file) => {
    const route = file.replace(/^app/, '').replace(/\/page\.tsx?$/, '');
    const segments = route.split('/').filter((s) => s && !/^\(.*\)$/.test(s));
    if (segments.some((s) => s.startsWith('[...'))) return { file, url: '/this-page-does-not-exist/at-all', expect: 'not-found' as const };
    const filled = segments.map((s, i) => {
      if (!s.startsWith('[')) return encodeURIComponent(s);
      const value = v[`${segments[i - 1]}/${s}`];
      if (value === undefined) throw new Error(`${file}: no value for the segment ${s}`);
      return encodeURIComponent(value);
    });
    const url = `/${filled.join('/')}${route.endsWith('/diff') ? diffQuery : ''}`;
    return { file, url, expect: 'page' as const };
  });
}
