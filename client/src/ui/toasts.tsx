import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

/**
 * error: something failed; success: a change was saved; info: nothing changed, and why. `key`: what
 * the notice is about, so that a later one about the same replaces it, or an outcome that makes it
 * stale (a retry that worked) takes it away.
 */
type TToast = { id: number; tone: 'error' | 'success' | 'info'; text: string; key?: string };
const ToastContext = createContext<(tone: TToast['tone'], text: string, key?: string) => void>(() => undefined);
const DismissContext = createContext<(key: string) => void>(() => undefined);

let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<TToast[]>([]);
  const show = useCallback((tone: TToast['tone'], text: string, key?: string) => {
    const id = nextId++;
    setToasts((list) => [...list.filter((t) => key === undefined || t.key !== key).slice(-2), { id, tone, text, key }]);
    setTimeout(() => setToasts((list) => list.filter((t) => t.id !== id)), tone === 'error' ? 8000 : 4000);
  }, []);
  const dismiss = useCallback((key: string) => setToasts((list) => list.filter((t) => t.key !== key)), []);
  return (
    <ToastContext.Provider value={show}>
      <DismissContext.Provider value={dismiss}>{children}</DismissContext.Provider>
      <div className="toasts" aria-live="assertive">
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.tone}`} role={t.tone === 'error' ? 'alert' : 'status'}>
            {t.text}
            <button
              type="button"
              className="toast-close"
              aria-label="Dismiss"
              onClick={() => setToasts((l) => l.filter((x) => x.id !== t.id))}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast() {
  return useContext(ToastContext);
}

/** Takes away the notices shown with `key` (nothing if none is showing). */
export function useDismissToast() {
  return useContext(DismissContext);
}
