import type { WebhookDeliveryDto } from '@/lib/types/guards';
import { dateTime } from '@/lib/format';
import { DataTable } from '@/components/data-table';

const STATUS_STYLE: Record<string, string> = {
  delivered: 'bg-emerald-50 text-emerald-800',
  pending: 'bg-amber-100 text-amber-900',
  failed: 'bg-red-50 text-red-800',
};

/** A subscription's delivery log: each event, its status, and every attempt with its HTTP status or error. */
export function WebhookDeliveries({ deliveries }: { deliveries: WebhookDeliveryDto[] }) {
  if (deliveries.length === 0) return <p className="card p-6 text-center text-slate-600">Nothing sent yet. “Send test event” queues one now.</p>;
  return (
    <DataTable testId="deliveries-table" columns={['Queued', 'Event', 'Status', 'Attempts']} rows={deliveries}>
      {(d) => (
        <tr key={d.id} data-event={d.event} data-status={d.status}>
          <td className="whitespace-nowrap text-xs">{dateTime(d.created_at)}</td>
          <td className="mono text-xs">{d.event}</td>
          <td>
            <span className={`badge ${STATUS_STYLE[d.status] ?? 'bg-slate-100 text-slate-700'}`}>{d.status}</span>
            {d.delivered_at && <div className="text-xs text-slate-600">at {dateTime(d.delivered_at)}</div>}
            {d.next_attempt_at && d.attempts > 0 && <div className="text-xs text-slate-600">next try {dateTime(d.next_attempt_at)}</div>}
          </td>
          <td className="text-xs">
            {d.log.length === 0 ? (
              <span className="text-slate-600">not tried yet</span>
            ) : (
              <ol className="space-y-0.5">
                {d.log.map((l) => (
                  <li key={l.attempt}>
                    #{l.attempt} {dateTime(l.at)}: {l.status_code !== null ? `HTTP ${l.status_code}` : 'no response'}
                    {l.error && <span className="text-red-700"> · {l.error}</span>} <span className="text-slate-600">({l.duration_ms} ms)</span>
                  </li>
                ))}
              </ol>
            )}
          </td>
        </tr>
      )}
    </DataTable>
  );
}
