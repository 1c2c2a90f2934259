/** Short display form of a revision id. */
export function shortId(id: string | null | undefined, n = 10): string {
  if (!id) return '—';
  return id.length > n ? id.slice(0, n) : id;
}

/** "just now", "5m", "3h", "12d" — compact ages for dense tables. */
export function age(iso: string | Date, now = Date.now()): string {
  const t = typeof iso === 'string' ? Date.parse(iso) : iso.getTime();
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

export function dateTime(iso: string | Date): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}
