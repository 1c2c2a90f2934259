'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { uploadRevisionAction } from '@/lib/actions/policies/upload-revision-action';
import { isActionError, runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { Field } from './form-field';
import { Modal } from './modal';

/** Upload a lock file (or paste one); validation errors are listed by JSON pointer. */
export function UploadLock({ policyName }: { policyName?: string }) {
  const router = useRouter();
  const ids = useId();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [name, setName] = useState(policyName ?? '');
  const [fileError, setFileError] = useState<string | null>(null);
  const mutation = useActionMutation(() => runAction(uploadRevisionAction, { policyName: name, text }), {
    success: (r) => (r.created ? `Stored revision ${r.revisionId.slice(0, 10)} of ${r.policy}` : `Revision ${r.revisionId.slice(0, 10)} was already stored with this content`),
    then: (r) => {
      setOpen(false);
      setText('');
      router.push(`/policies/${encodeURIComponent(r.policy)}/revisions/${encodeURIComponent(r.revisionId)}`);
    },
    errors: 'inline',
  });
  const err = isActionError(mutation.error) ? mutation.error : null;

  async function onFile(file: File | undefined) {
    setFileError(null);
    if (!file) return;
    const content = await file.text();
    setText(content);
    try {
      const doc = JSON.parse(content);
      if (!policyName && typeof doc?.name === 'string') setName(doc.name);
    } catch {
      setFileError('This file is not valid JSON; the server will say where.');
    }
  }

  if (!open) {
    return (
      <button type="button" className="btn btn-primary" onClick={() => setOpen(true)}>
        Upload lock
      </button>
    );
  }
  return (
    <Modal title="Upload a Policyfile lock" onClose={() => setOpen(false)} wide>
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          mutation.mutate();
        }}
      >
        <div>
          <label htmlFor={`${ids}-file`} className="mb-1 block text-xs font-medium text-slate-600">
            Lock file (Policyfile.lock.json)
          </label>
          <input id={`${ids}-file`} type="file" accept=".json,application/json" onChange={(e) => onFile(e.target.files?.[0])} />
          {fileError && <p className="mt-1 text-xs text-amber-700">{fileError}</p>}
        </div>
        <Field label={<span className="mb-1 block">Policy name</span>} name="policyName" errors={mutation.formErrors}>
          {(c) => <input {...c} className="input" value={name} onChange={(e) => setName(e.target.value)} readOnly={!!policyName} required />}
        </Field>
        <div>
          <label htmlFor={`${ids}-text`} className="mb-1 block text-xs font-medium text-slate-600">
            Document
          </label>
          <textarea id={`${ids}-text`} className="input h-48 font-mono text-xs" value={text} onChange={(e) => setText(e.target.value)} placeholder='{"name": "…", "revision_id": "…", "run_list": [], "cookbook_locks": {}}' />
        </div>
        {err && (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="upload-errors">
            <p className="font-medium">{err.message}</p>
            {err.errors.length > 0 && (
              <ul className="mt-2 space-y-1">
                {err.errors.map((e, i) => (
                  <li key={i}>
                    <code className="mono rounded bg-red-100 px-1">{e.path || '(document)'}</code> {e.message.replace('the policy name in the URL', 'the policy name above')}
                  </li>
                ))}
              </ul>
            )}
            {err.code === 'conflict' && <p className="mt-2 text-xs">Revisions are immutable: give the changed document a new revision_id.</p>}
          </div>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={mutation.isPending || !text || !name}>
            {mutation.isPending ? 'Uploading…' : 'Upload'}
          </button>
        </div>
        <p className="text-xs text-slate-600">
          Or from a workstation: <code className="mono">POST /api/v1/policies/&lt;name&gt;/revisions</code> with an{' '}
          <Link href="/admin/tokens" className="underline">
            API token
          </Link>
          .
        </p>
      </form>
    </Modal>
  );
}
