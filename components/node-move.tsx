'use client';

import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { moveNodeAction } from '@/lib/actions/nodes/move-node-action';

/**
 * Issue 41 (docs/stage-binding.md): a node's stage is the console's fact; a user who may change what runs in the
 * stage it is in and in the one it goes to moves it here (or with knife node policy set, or PUT
 * /api/v1/nodes/:name/stage). Only the stages the user may move it to are offered.
 */
export function NodeMove({ name, current, targets }: { name: string; current: string | null; targets: string[] }) {
  const [stage, setStage] = useState(targets[0] ?? '');
  const move = useActionMutation((to: string) => runAction(moveNodeAction, { name, stage: to }), {
    success: (r) => (r.moved ? `Moved ${r.name} to ${r.stage}` : `${r.name} is already in ${r.stage}`),
  });
  if (!targets.length) return null;
  return (
    <form
      aria-label="Move to stage"
      className="card mt-4 flex max-w-3xl flex-wrap items-end gap-3 p-4 text-sm"
      onSubmit={(e) => {
        e.preventDefault();
        if (stage) move.mutate(stage);
      }}
    >
      <label className="flex flex-col gap-1">
        <span className="font-medium">Move to stage</span>
        <select className="input w-48" value={stage} onChange={(e) => setStage(e.target.value)}>
          {targets.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="btn btn-primary" disabled={move.isPending || !stage}>
        Move
      </button>
      <p className="basis-full text-slate-600">
        {current ? `Now in ${current}.` : 'Now in no stage.'} chef-client follows the node&apos;s stage on its next run when its client.rb sets no policy_group; a client.rb naming the old stage is refused with the way to fix it.
      </p>
    </form>
  );
}
