import Link from 'next/link';
import type { ResourceTakeover } from '@/lib/domain/resource-map';

/** Incoming cookbooks that claim core resource names, and what each Chef mode would do with them. */
export function TakeoverWarning({ takeovers }: { takeovers: ResourceTakeover[] }) {
  return (
    <div role="note" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-900" data-testid="takeover-warning">
      <p className="font-medium">This change brings in cookbooks that claim core resource names:</p>
      <ul className="mt-1 list-disc pl-5">
        {takeovers.map((t) => (
          <li key={`${t.cookbook}-${t.resource}`}>
            <b>{t.cookbook}</b> provides <code className="mono">{t.resource}</code> (core: {t.core.join(', ')}) — RFC design: {t.modes.rfc}; Chef 14: {t.modes.chef14}; Chef 15+: {t.modes.chef15}.{' '}
            <Link className="underline" href={`/resource-map?cookbook=${encodeURIComponent(t.cookbook)}&resource=${encodeURIComponent(t.resource)}`}>
              Explore<span className="sr-only"> {t.cookbook} providing {t.resource}</span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

