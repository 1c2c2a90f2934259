'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useRef, useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { deleteSavedSearchAction, saveSearchAction } from '@/lib/actions/nodes/saved-search-actions';
import { RUN_FILTERS, type RunFilter, type SavedSearchDto } from '@/lib/types/nodes';
import { RUN_FILTER_LABELS, nodesHref } from './nodes-href';
import { Field, InlineForm } from './form-field';
import { ConfirmDialog } from './modal';

/** The search box: a GET form, so every search is a deep link (and works before the page's script loads). */
export function NodeSearchBox({ query, run, examples }: { query: string; run: RunFilter | null; examples: string[] }) {
  const router = useRouter();
  const [value, setValue] = useState(query);
  const [runValue, setRunValue] = useState<RunFilter | ''>(run ?? '');
  return (
    <div className="card p-4">
      <form
        role="search"
        action="/nodes"
        method="get"
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          router.push(nodesHref(value.trim(), runValue || null));
        }}
      >
        <label className="min-w-0 flex-1 text-sm font-medium text-slate-700">
          Search nodes
          <input
            name="q"
            type="search"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            placeholder="policy_name:webapp AND policy_group:production"
            className="input mt-1 w-full font-mono"
            aria-describedby="node-search-help"
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <label className="text-sm font-medium text-slate-700">
          Run status
          <select
            name="run"
            value={runValue}
            onChange={(e) => {
              const next = e.target.value as RunFilter | '';
              setRunValue(next);
              // The filter applies at once (to the query as it was searched), as a link would.
              router.push(nodesHref(query, next || null));
            }}
            className="input mt-1 block"
            aria-describedby="node-run-help"
          >
            <option value="">Any</option>
            {RUN_FILTERS.map((r) => (
              <option key={r} value={r}>
                {RUN_FILTER_LABELS[r][0].toUpperCase() + RUN_FILTER_LABELS[r].slice(1)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn btn-primary">
          Search
        </button>
        {(query || run) && (
          <Link
            href="/nodes"
            className="btn"
            onClick={() => {
              setValue('');
              setRunValue('');
            }}
          >
            Clear
          </Link>
        )}
      </form>
      <p id="node-run-help" className="mt-2 text-xs text-slate-600">
        Run status counts as the board does: a node is failing when its last chef-client run of the revision its stage runs failed, yet to run it when it has not run that revision, missing when it has not reported for the missing interval.
      </p>
      <p id="node-search-help" className="mt-1 text-xs text-slate-600">
        Chef&apos;s query language, as <code className="mono">knife search node</code> and recipes&apos; <code className="mono">search(:node, …)</code> use it: <code className="mono">field:value</code>, <code className="mono">*</code> and{' '}
        <code className="mono">?</code>, <code className="mono">AND</code> / <code className="mono">OR</code> / <code className="mono">NOT</code>, parentheses, quotes, <code className="mono">[a TO b]</code>. Examples:{' '}
        {examples.map((ex, i) => (
          <span key={ex}>
            {i > 0 && ', '}
            <Link href={nodesHref(ex)} className="mono text-indigo-800 underline" onClick={() => setValue(ex)}>
              {ex}
            </Link>
          </span>
        ))}
      </p>
    </div>
  );
}

/** The user's saved searches: open one, save the current query under a name, delete one (with confirmation). */
export function SavedSearches({ saved, query, queryValid }: { saved: SavedSearchDto[]; query: string; queryValid: boolean }) {
  const form = useRef<HTMLFormElement>(null);
  const router = useRouter();
  const [deleting, setDeleting] = useState<SavedSearchDto | null>(null);
  const save = useActionMutation((v: { name: string; query: string }) => runAction(saveSearchAction, v), {
    success: (r) => `Saved search ${r.name}`,
    then: () => {
      form.current?.reset();
      router.refresh();
    },
    errors: 'inline',
  });
  const remove = useActionMutation((v: { id: string }) => runAction(deleteSavedSearchAction, v), {
    success: () => 'Saved search deleted',
    then: () => {
      setDeleting(null);
      router.refresh();
    },
  });
  return (
    <section aria-labelledby="saved-searches" className="card p-4">
      <h2 id="saved-searches" className="text-sm font-semibold text-slate-900">
        Your saved searches
      </h2>
      {saved.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600">None yet. Search, then save the query under a name.</p>
      ) : (
        <ul className="mt-2 space-y-1 text-sm">
          {saved.map((s) => (
            <li key={s.id} className="flex items-center gap-2">
              <Link href={nodesHref(s.query)} className="font-medium text-indigo-800 underline" title={s.query}>
                {s.name}
              </Link>
              <code className="mono truncate text-xs text-slate-600">{s.query}</code>
              <button type="button" className="ml-auto text-xs text-red-700 hover:underline" onClick={() => setDeleting(s)}>
                Delete<span className="sr-only"> saved search {s.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {query && queryValid && (
        <InlineForm
          label="Save this search"
          formRef={form}
          className="mt-3 flex flex-wrap items-start gap-2 border-t border-slate-100 pt-3"
          primary={false}
          submit="Save"
          pending={save.isPending}
          errors={save.formErrors}
          fields={['name', 'query']}
          onData={(f) => save.mutate({ name: String(f.get('name') ?? ''), query })}
        >
          <Field label="Save this search as" name="name" errors={save.formErrors}>
            {(c) => <input {...c} required maxLength={80} className="input mt-1 w-56" />}
          </Field>
        </InlineForm>
      )}
      {deleting && (
        <ConfirmDialog title={`Delete saved search ${deleting.name}?`} confirmLabel="Delete" danger pending={remove.isPending} onConfirm={() => remove.mutate({ id: deleting.id })} onClose={() => setDeleting(null)}>
          Only the saved query goes; the nodes are not touched.
        </ConfirmDialog>
      )}
    </section>
  );
}
