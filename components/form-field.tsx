'use client';

import { useId, type ReactNode, type Ref } from 'react';
import type { FormErrors } from '@/lib/actions/form-errors';

/** What a control inside a `Field` spreads onto itself: its id and name, and the ARIA links to the server's messages. */
export interface FieldControlProps {
  id: string;
  name: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

const sentence = (m: string) => m.charAt(0).toUpperCase() + m.slice(1);

/**
 * A labelled control and what the server said about it. The rules live on the
 * server (one schema): the browser keeps only `required` and lengths as hints,
 * never a copy of a pattern; a refused value comes back as `fieldErrors[name]`,
 * shown under the control, which gets `aria-invalid` and `aria-describedby`.
 */
export function Field({
  label,
  name,
  errors,
  hint,
  className,
  children,
}: {
  label: ReactNode;
  /** The input field's key as the action receives it (`name`, `expiresAt`, `includes.0.source.path`). */
  name: string;
  errors: FormErrors | null | undefined;
  hint?: ReactNode;
  className?: string;
  children: (control: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  const messages = errors?.fieldErrors[name] ?? [];
  const describedBy = [messages.length ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">
        {label}
      </label>
      {children({ id, name, ...(messages.length ? { 'aria-invalid': true } : {}), ...(describedBy ? { 'aria-describedby': describedBy } : {}) })}
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
          {hint}
        </p>
      )}
      {messages.length > 0 && (
        <p id={`${id}-error`} className="mt-1 text-xs font-medium text-red-700" data-field-error={name}>
          {messages.map(sentence).join(' ')}
        </p>
      )}
    </div>
  );
}

/**
 * The form-level message (a refusal, a conflict, a rule about the whole form),
 * and any field error the form has no control for (`fields` lists the ones it
 * shows), so nothing the server said is lost.
 */
export function FormAlert({ errors, fields = [], children }: { errors: FormErrors | null | undefined; fields?: string[]; children?: ReactNode }) {
  if (!errors) return null;
  const others = Object.entries(errors.fieldErrors).filter(([k]) => !fields.includes(k));
  if (!errors.formError && !others.length) return null;
  return (
    <div role="alert" className="w-full rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="form-error">
      {errors.formError && <p className="font-medium">{errors.formError}</p>}
      {others.length > 0 && (
        <ul className="mt-1 list-disc pl-5">
          {others.map(([k, ms]) => (
            <li key={k}>
              <code className="mono">{k || '(input)'}</code> {ms.join('; ')}
            </li>
          ))}
        </ul>
      )}
      {children}
    </div>
  );
}

/**
 * A one-row form whose rules live on the server (`noValidate`): it hands its fields to `onData`, and ends with its
 * submit button and the `FormAlert` for what the server said beyond the `fields` it shows.
 */
export function InlineForm({
  label,
  onData,
  submit,
  pending,
  errors,
  fields,
  formRef,
  className = 'card flex flex-wrap items-start gap-3 p-4',
  primary = true,
  children,
}: {
  label: string;
  onData: (fields: FormData) => void;
  submit: ReactNode;
  pending: boolean;
  errors: FormErrors | null | undefined;
  fields: string[];
  formRef?: Ref<HTMLFormElement>;
  className?: string;
  primary?: boolean;
  children: ReactNode;
}) {
  return (
    <form
      ref={formRef}
      aria-label={label}
      className={className}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onData(new FormData(e.currentTarget));
      }}
    >
      {children}
      <button type="submit" className={primary ? 'btn btn-primary mt-5' : 'btn mt-5'} disabled={pending}>
        {submit}
      </button>
      <FormAlert errors={errors} fields={fields} />
    </form>
  );
}
