'use client';

import { toast } from 'sonner';
import { Modal } from './modal';

/**
 * A secret shown once (a private key): copy or download it; only the explicit
 * "I have saved it" closes the dialog, so a stray click or Escape cannot lose it.
 */
export function SecretDialog({ title, secret, filename, children, onDone }: { title: string; secret: string; filename: string; children?: React.ReactNode; onDone: () => void }) {
  const download = () => {
    const url = URL.createObjectURL(new Blob([secret], { type: 'application/x-pem-file' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Modal title={title} onClose={() => toast.info('Save the key first, then choose “I have saved it”.')} wide>
      <p className="mb-2 text-slate-600">This is the only time the private key is shown: the console keeps just the public key.</p>
      <textarea readOnly value={secret} rows={8} className="input mono w-full text-xs" aria-label="Private key" onFocus={(e) => e.currentTarget.select()} />
      {children}
      <div className="mt-3 flex justify-end gap-2">
        <button type="button" className="btn" onClick={() => navigator.clipboard?.writeText(secret).then(() => toast.success('Copied'))}>
          Copy
        </button>
        <button type="button" className="btn" onClick={download}>
          Download {filename}
        </button>
        <button type="button" className="btn btn-primary" onClick={onDone}>
          I have saved it
        </button>
      </div>
    </Modal>
  );
}
