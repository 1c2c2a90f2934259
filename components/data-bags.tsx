'use client';

import { useRouter } from 'next/navigation';
import { useRef, useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import {
  createDataBagAction,
  deleteDataBagAction,
  deleteDataBagItemAction,
  saveDataBagItemAction,
  setDataBagGrantAction,
  setDataBagStagesAction,
} from '@/lib/actions/data-bags/data-bag-actions';
import type { DataBagDetailDto, DataBagItemSummaryDto } from '@/lib/types/data-bags';
import { Field, FormAlert, InlineForm } from './form-field';
import { ConfirmDialog } from './modal';

const bagHref = (bag: string) => `/data-bags/${encodeURIComponent(bag)}`;
const itemHref = (bag: string, item: string) => `${bagHref(bag)}/${encodeURIComponent(item)}`;

/** Creating a bag (the list page). */
export function CreateDataBagForm() {
  const form = useRef<HTMLFormElement>(null);
  const router = useRouter();
  const create = useActionMutation((v: { name: string }) => runAction(createDataBagAction, v), {
    success: (r) => `Created data bag ${r.name}`,
    then: (r) => {
      form.current?.reset();
      router.push(bagHref(r.name));
    },
    errors: 'inline',
  });
  return (
    <InlineForm
      label="Create a data bag"
      formRef={form}
      submit="Create"
      pending={create.isPending}
      errors={create.formErrors}
      fields={['name']}
      onData={(f) => create.mutate({ name: String(f.get('name') ?? '') })}
    >
      <Field label="New data bag" name="name" errors={create.formErrors} hint="A-Z, a-z, 0-9, _, :, . or -">
        {(c) => <input {...c} required maxLength={255} className="input mt-1 w-64 font-mono" />}
      </Field>
    </InlineForm>
  );
}

export function ItemKindBadge({ item }: { item: Pick<DataBagItemSummaryDto, 'kind' | 'version' | 'vault'> }) {
  if (item.vault) return <span className="rounded bg-violet-100 px-1.5 py-0.5 text-xs font-medium text-violet-800">chef-vault</span>;
  if (item.kind === 'encrypted') return <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-800">encrypted v{item.version}</span>;
  if (item.kind === 'vault-keys') return <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700">vault keys</span>;
  return <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-800">plain</span>;
}

/** A vault item: who can decrypt it, and the nodes its search selects that hold no key. */
export function VaultDetails({ vault }: { vault: NonNullable<DataBagItemSummaryDto['vault']> }) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-sm">
      <dt className="text-slate-600">Admins</dt>
      <dd className="font-mono">{vault.admins.join(', ') || '—'}</dd>
      <dt className="text-slate-600">Clients</dt>
      <dd className="font-mono">{vault.clients.join(', ') || '—'}</dd>
      <dt className="text-slate-600">Search query</dt>
      <dd className="font-mono">{vault.searchQuery ?? '—'}</dd>
      <dt className="text-slate-600">Cannot decrypt</dt>
      <dd>
        {vault.missing.length ? (
          <span className="font-mono text-red-700">{vault.missing.join(', ')}</span>
        ) : vault.missingNote ? (
          <span className="text-slate-600">{vault.missingNote}</span>
        ) : (
          'every node the query selects holds a key'
        )}
        {vault.missing.length > 0 && <p className="text-xs text-slate-600">Nodes the search query selects whose client holds no key: run knife vault refresh.</p>}
      </dd>
    </dl>
  );
}

/** Create or replace an item from JSON typed by the user (stored exactly as typed). */
export function ItemEditor({ bag, id, initial, onDone }: { bag: string; id?: string; initial: string; onDone?: () => void }) {
  const [json, setJson] = useState(initial);
  const router = useRouter();
  const save = useActionMutation((v: { bag: string; id?: string; json: string }) => runAction(saveDataBagItemAction, v), {
    success: (r) => (r.created ? `Created item ${r.id}` : `Saved item ${r.id}`),
    then: (r) => {
      onDone?.();
      if (r.created) router.push(itemHref(r.bag, r.id));
    },
    errors: 'inline',
  });
  return (
    <form
      aria-label={id ? `Edit item ${id}` : 'Create an item'}
      className="space-y-2"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ bag, ...(id ? { id } : {}), json });
      }}
    >
      <Field label={id ? `Item ${id} (JSON)` : 'New item (JSON with an "id")'} name="json" errors={save.formErrors}>
        {(c) => <textarea {...c} required rows={12} spellCheck={false} className="input mt-1 w-full font-mono text-xs" value={json} onChange={(e) => setJson(e.target.value)} />}
      </Field>
      <FormAlert errors={save.formErrors} fields={['json']} />
      <div className="flex gap-2">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {id ? 'Save' : 'Create item'}
        </button>
        {onDone && (
          <button type="button" className="btn" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** The bag page's actions: new item, delete bag (confirmed), and the admin settings. */
export function DataBagActions({ bag }: { bag: DataBagDetailDto }) {
  const router = useRouter();
  const [adding, setAdding] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useActionMutation((v: { bag: string }) => runAction(deleteDataBagAction, v), {
    success: (r) => `Deleted data bag ${r.bag}`,
    then: () => router.push('/data-bags'),
    refresh: false,
  });
  if (bag.myLevel !== 'write') return <p className="text-sm text-slate-600">You may read this bag. Administrators and teams granted write on it may change it.</p>;
  return (
    <div className="space-y-3">
      <div className="flex gap-2">
        <button type="button" className="btn btn-primary" onClick={() => setAdding((a) => !a)} aria-expanded={adding}>
          New item
        </button>
        <button type="button" className="btn btn-danger" onClick={() => setConfirming(true)}>
          Delete bag
        </button>
      </div>
      {adding && (
        <div className="card p-4">
          <ItemEditor bag={bag.name} initial={'{\n  "id": ""\n}'} onDone={() => setAdding(false)} />
        </div>
      )}
      {confirming && (
        <ConfirmDialog title={`Delete data bag ${bag.name}?`} confirmLabel="Delete bag and items" danger pending={remove.isPending} typeToConfirm={bag.name} onConfirm={() => remove.mutate({ bag: bag.name })} onClose={() => setConfirming(false)}>
          Its {bag.itemCount} item{bag.itemCount === 1 ? '' : 's'} are deleted with it; recipes that read them fail on their next run.
        </ConfirmDialog>
      )}
    </div>
  );
}

/** Administrators: restrict the bag to the clients of chosen stages, and grant teams read or write. */
export function DataBagSettings({ bag }: { bag: DataBagDetailDto }) {
  const [stages, setStages] = useState<string[]>(bag.stages);
  const saveStages = useActionMutation((v: { bag: string; stages: string[] }) => runAction(setDataBagStagesAction, v), {
    success: (r) => (r.stages.length ? `Only clients of ${r.stages.join(', ')} read ${r.bag} now` : `Every client reads ${r.bag} now`),
    errors: 'inline',
  });
  const grant = useActionMutation((v: { bag: string; teamId: string; level: 'read' | 'write' | 'none' }) => runAction(setDataBagGrantAction, v), { success: () => 'Team rights saved' });
  const levelOf = (teamId: string) => bag.grants.find((g) => g.teamId === teamId)?.level ?? 'none';
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <form
        aria-label="Stage restriction"
        className="card space-y-2 p-4"
        onSubmit={(e) => {
          e.preventDefault();
          saveStages.mutate({ bag: bag.name, stages });
        }}
      >
        <h2 className="font-semibold">Which clients read this bag</h2>
        <p className="text-sm text-slate-600">None checked: every client (Chef&apos;s default). Checked: only clients whose node is in one of these stages; others get 403 on every route.</p>
        <fieldset className="flex flex-wrap gap-3">
          <legend className="sr-only">Stages</legend>
          {bag.allStages.map((s) => (
            <label key={s} className="flex items-center gap-1 text-sm">
              <input type="checkbox" checked={stages.includes(s)} onChange={(e) => setStages((cur) => (e.target.checked ? [...cur, s] : cur.filter((x) => x !== s)))} />
              {s}
            </label>
          ))}
        </fieldset>
        <FormAlert errors={saveStages.formErrors} />
        <button type="submit" className="btn" disabled={saveStages.isPending}>
          Save restriction
        </button>
      </form>
      <div className="card space-y-2 p-4">
        <h2 className="font-semibold">Team rights</h2>
        <p className="text-sm text-slate-600">Write: change items and delete the bag. Read: read it even when restricted to stages the member may not view.</p>
        <table className="table">
          <tbody>
            {bag.allTeams.map((t) => (
              <tr key={t.id}>
                <th scope="row" className="text-left font-normal">
                  {t.name}
                </th>
                <td>
                  <select aria-label={`Right of team ${t.name}`} className="input py-0.5" value={levelOf(t.id)} disabled={grant.isPending} onChange={(e) => grant.mutate({ bag: bag.name, teamId: t.id, level: e.target.value as 'read' | 'write' | 'none' })}>
                    <option value="none">none</option>
                    <option value="read">read</option>
                    <option value="write">write</option>
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The item page's actions: edit (plain JSON; encrypted items are replaced whole), delete (confirmed). */
export function DataBagItemActions({ bag, id, document }: { bag: string; id: string; document: string }) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useActionMutation((v: { bag: string; item: string }) => runAction(deleteDataBagItemAction, v), {
    success: (r) => `Deleted item ${r.item}`,
    then: () => router.push(bagHref(bag)),
    refresh: false,
  });
  return (
    <div className="space-y-3">
      {editing ? (
        <ItemEditor bag={bag} id={id} initial={document} onDone={() => setEditing(false)} />
      ) : (
        <div className="flex gap-2">
          <button type="button" className="btn" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" className="btn btn-danger" onClick={() => setConfirming(true)}>
            Delete item
          </button>
        </div>
      )}
      {confirming && (
        <ConfirmDialog title={`Delete item ${id}?`} confirmLabel="Delete item" danger pending={remove.isPending} onConfirm={() => remove.mutate({ bag, item: id })} onClose={() => setConfirming(false)}>
          Recipes that read <code className="mono">{`${bag}/${id}`}</code> fail on their next run.
        </ConfirmDialog>
      )}
    </div>
  );
}

