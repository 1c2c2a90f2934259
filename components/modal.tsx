'use client';

import * as Dialog from '@radix-ui/react-dialog';
import { useState, type ReactNode } from 'react';

/**
 * An accessible modal on Radix Dialog: focus moves in once when it opens (never
 * again on a parent's re-render, so a background refresh cannot pull focus back
 * to the first field), is trapped inside, and returns to the trigger on close.
 *
 * `dismissible={false}` is for dialogs whose content is lost on close (a
 * one-time secret): Escape and a click outside do nothing; only an explicit
 * button inside closes it.
 */
export function Modal({
  title,
  onClose,
  children,
  wide,
  dismissible = true,
  description,
}: {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
  dismissible?: boolean;
  description?: ReactNode;
}) {
  const block = (e: Event) => {
    if (!dismissible) e.preventDefault();
  };
  // Radix returns focus to its own Trigger; these dialogs are opened from plain buttons, so remember what had focus.
  const [opener] = useState(() => (typeof document === 'undefined' ? null : (document.activeElement as HTMLElement | null)));
  const returnFocus = (e: Event) => {
    if (opener?.isConnected) {
      e.preventDefault();
      opener.focus();
    }
  };
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <div className="pointer-events-none fixed inset-0 z-40 flex items-start justify-center overflow-y-auto p-6">
          <Dialog.Content
            className={`card pointer-events-auto w-full ${wide ? 'max-w-3xl' : 'max-w-xl'} p-5 focus:outline-none`}
            onEscapeKeyDown={block}
            onPointerDownOutside={block}
            onInteractOutside={block}
            onCloseAutoFocus={returnFocus}
            {...(description ? {} : { 'aria-describedby': undefined })}
          >
            <Dialog.Title className="mb-3 text-base font-semibold">{title}</Dialog.Title>
            {description && <Dialog.Description className="mb-3 text-slate-600">{description}</Dialog.Description>}
            {children}
          </Dialog.Content>
        </div>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/**
 * A yes/no confirmation for anything destructive or hard to undo. With
 * `typeToConfirm`, the confirm button stays disabled until the user has typed
 * that exact text (for deletions that affect many nodes or people).
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger,
  pending,
  onConfirm,
  onClose,
  typeToConfirm,
  cancelLabel = 'Cancel',
  confirmDisabled = false,
}: {
  title: ReactNode;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  pending?: boolean;
  onConfirm: () => void;
  onClose: () => void;
  typeToConfirm?: string;
  /** The words of the button that closes without doing anything (default "Cancel"). */
  cancelLabel?: string;
  /** Issue 43: the confirm waits for something the dialog asks (e.g. a written reason). */
  confirmDisabled?: boolean;
}) {
  const [typed, setTyped] = useState('');
  const confirmed = !typeToConfirm || typed === typeToConfirm;
  return (
    <Modal title={title} onClose={onClose}>
      <div className="mb-3 text-slate-700">{children}</div>
      {typeToConfirm && (
        <div className="mb-3">
          <label htmlFor="type-to-confirm" className="mb-1 block text-sm text-slate-700">
            Type <b className="mono">{typeToConfirm}</b> to confirm
          </label>
          <input id="type-to-confirm" className="input mono" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} />
        </div>
      )}
      <div className="flex justify-end gap-2">
        <button type="button" className="btn" onClick={onClose}>
          {cancelLabel}
        </button>
        <button type="button" className={`btn ${danger ? 'btn-danger' : 'btn-primary'}`} onClick={onConfirm} disabled={pending || !confirmed || confirmDisabled}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
