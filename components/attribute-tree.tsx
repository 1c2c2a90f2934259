/** A collapsible tree of attributes (server component: plain <details>, keyboard-accessible). */
export function AttributeTree({ value, label }: { value: unknown; label: string }) {
  const empty = !value || (typeof value === 'object' && Object.keys(value as object).length === 0);
  if (empty) return <p className="text-slate-600">No {label}.</p>;
  return (
    <ul className="mono space-y-0.5">
      {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
        <Node key={k} name={k} value={v} depth={0} />
      ))}
    </ul>
  );
}

function Node({ name, value, depth }: { name: string; value: unknown; depth: number }) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    return (
      <li>
        <details open={depth < 1}>
          <summary className="cursor-pointer select-none text-slate-700">
            <span className="font-semibold">{name}</span> <span className="text-slate-600">{`{${entries.length}}`}</span>
          </summary>
          <ul className="ml-4 border-l border-slate-200 pl-3">
            {entries.map(([k, v]) => (
              <Node key={k} name={k} value={v} depth={depth + 1} />
            ))}
          </ul>
        </details>
      </li>
    );
  }
  return (
    <li>
      <span className="text-slate-700">{name}</span>: <span className="text-emerald-800">{JSON.stringify(value)}</span>
    </li>
  );
}
