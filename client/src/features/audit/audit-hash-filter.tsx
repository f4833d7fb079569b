import { useId, useState, type FormEvent } from 'react';
import { readHashPrefix } from './audit-filters';

/** "Hash starts with": what a regulator holding an export's chain head types. */
export function HashFilter({ hash, onFind }: { hash: string | undefined; onFind: (hash: string | undefined) => void }) {
  const [typed, setTyped] = useState(hash ?? '');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (typed.trim() === '') {
      setError(null);
      onFind(undefined);
      return;
    }
    const prefix = readHashPrefix(typed);
    if (!prefix) {
      setError('Type at least 6 of the hash’s characters (0–9, a–f).');
      return;
    }
    setError(null);
    onFind(prefix);
  };
  return (
    <form className="audit-hash-filter" onSubmit={submit} role="search" aria-label="Find an event by its hash">
      <label className="compact-field">
        <span>Hash</span>
        <input
          type="search"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          placeholder="First 6+ characters"
          spellCheck={false}
          autoComplete="off"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
      </label>
      <button type="submit" className="button small ghost">
        Find
      </button>
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
