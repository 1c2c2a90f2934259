/**
 * The run_converge message chef-client 18 sends its data collector (the recorded success and failure in
 * test/fixtures/data-collector), made to name another node, stage, policy and revision and to end now: one
 * builder for the integration tests and the e2e specs that report runs.
 */
import fs from 'node:fs';
import path from 'node:path';

type Status = 'success' | 'failure';
type Message = Record<string, unknown> & { node: { automatic: Record<string, unknown> }; resources: { status: string }[]; error?: Record<string, unknown> };

const recorded: Partial<Record<Status, Message>> = {};
/** The recorded run_converge (the second line of the recording; the first is run_start). */
function template(status: Status): Message {
  return (recorded[status] ??= JSON.parse(fs.readFileSync(path.resolve('test/fixtures/data-collector', `chef-18.4.64-${status}.jsonl`), 'utf8').trim().split('\n')[1]));
}

export function runConvergeMessage(m: {
  runId: string;
  node: string;
  stage: string;
  policy: string;
  revision: string;
  status?: Status;
  /** The cookbook the failed resources belong to (the recording's otherwise). */
  failedCookbook?: string;
  /** The failure's message (the recording's otherwise). */
  error?: string;
}) {
  const t = template(m.status ?? 'success');
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const { node, stage, policy, revision } = m;
  return {
    ...t,
    id: m.runId,
    run_id: m.runId,
    node_name: node,
    policy_name: policy,
    policy_group: stage,
    start_time: now,
    end_time: now,
    ...(m.failedCookbook ? { resources: t.resources.map((r) => (r.status === 'failed' ? { ...r, cookbook_name: m.failedCookbook } : r)) } : {}),
    ...(m.error ? { error: { ...t.error, message: m.error } } : {}),
    node: { ...t.node, name: node, policy_name: policy, policy_group: stage, automatic: { ...t.node.automatic, name: node, policy_revision: revision, policy_name: policy, policy_group: stage } },
  };
}
