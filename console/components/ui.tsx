// Small shared pieces of the console's pages.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';

export interface Async<T> {
  data: T | undefined;
  error: Error | null;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); the latest call wins. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error: Error | null; loading: boolean }>({ error: null, loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/**
 * A form's submit: `busy` while `work` runs, and what it throws kept as `error` (cleared on the next
 * run) unless `recover` takes it (answers true: handled).
 */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (work: () => Promise<void>, recover?: (failure: unknown) => Promise<boolean>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      if (!(await recover?.(failure))) setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/**
 * Actions on a list that `reload` shows again: `act` clears the last error and notice, runs `work`,
 * then shows `done` and reloads (true), or keeps the failure as `error` (false). `report` shows a
 * change made elsewhere (a form) the same way.
 */
export function useListActions(reload: () => void) {
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const report = (done: string) => {
    setError(null);
    setNotice(done);
    reload();
  };
  const act = async (work: () => Promise<unknown>, done: string) => {
    setError(null);
    setNotice(null);
    try {
      await work();
      report(done);
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    }
  };
  return { error, notice, act, report };
}

/** A value that settles `ms` after its last change (search as you type). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const status = error instanceof ApiError ? ` (${error.status})` : '';
  return <div class="error" role="alert">{(error as Error).message}{status}</div>;
}

export function Notice({ children }: { children: ComponentChildren }) {
  return <div class="notice" role="status">{children}</div>;
}

export function Loading({ when }: { when: boolean }) {
  return when ? <span class="loading" aria-live="polite">Loading…</span> : null;
}

export function JsonView({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** Previous / next over `total` items, `limit` per page. */
export function Pager({ offset, limit, total, onChange }: { offset: number; limit: number; total: number; onChange: (offset: number) => void }) {
  const last = Math.max(0, total - 1);
  return (
    <div class="pager">
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>‹ Previous</button>
      <span>{total === 0 ? 'none' : `${offset + 1}–${Math.min(offset + limit, total)} of ${total}`}</span>
      <button type="button" disabled={offset + limit > last} onClick={() => onChange(offset + limit)}>Next ›</button>
    </div>
  );
}

export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
      {hint ? <small>{hint}</small> : null}
    </label>
  );
}

/** A copy-to-clipboard button for a secret shown once. */
export function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button type="button" onClick={() => navigator.clipboard.writeText(text).then(() => setCopied(true), () => setCopied(false))}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
