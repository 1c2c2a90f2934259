/** How a revision came to be: uploaded, composed, or derived by a cookbook promotion. */
export function OriginLabel({ origin, detail }: { origin: string; detail: Record<string, unknown> | null }) {
  const style: Record<string, string> = {
    upload: 'bg-slate-100 text-slate-700',
    seed: 'bg-slate-100 text-slate-600',
    compose: 'bg-violet-50 text-violet-700',
    'cookbook-promotion': 'bg-sky-50 text-sky-700',
  };
  const text =
    origin === 'cookbook-promotion' && detail
      ? `cookbook ${String(detail.cookbook)} from ${String(detail.fromStage)}`
      : origin === 'compose' && detail && Array.isArray(detail.includes)
        ? `composed from ${(detail.includes as { name: string }[]).map((i) => i.name).join(', ')}`
        : origin;
  return <span className={`badge ${style[origin] ?? 'bg-slate-100 text-slate-700'}`}>{text}</span>;
}
