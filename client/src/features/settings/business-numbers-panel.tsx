import { useRef, useState } from 'react';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { AddNumberForm } from './add-number-form';
import { NumberRow } from './number-row';

/** Settings › Business numbers (directors): the firm's numbers, each with its own provider key, and a way to add one. */
export function BusinessNumbersPanel() {
  const list = trpc.numbers.list.useQuery();
  const [adding, setAdding] = useState(false);
  const addButton = useRef<HTMLButtonElement>(null);
  // Closed (added or cancelled): focus goes back to the button that opened it.
  const close = () => {
    setAdding(false);
    requestAnimationFrame(() => addButton.current?.focus());
  };
  return (
    <section className="card business-numbers" aria-labelledby="business-numbers-title">
      <h2 id="business-numbers-title">Business numbers</h2>
      <p className="muted small">
        The numbers clients write to. The main number is the configuration’s (FIRM_PHONE); each other number has its own provider key. A
        deactivated number sends nothing, and its past messages stay on file.
      </p>
      <QueryStatus query={list} loading="Loading the firm’s numbers…" padded={false}>
        {(numbers) => (
          <ul className="firm-number-list" aria-label="Business numbers">
            {numbers.map((n) => (
              <NumberRow key={n.id} number={n} />
            ))}
          </ul>
        )}
      </QueryStatus>
      {adding ? (
        <AddNumberForm onDone={close} />
      ) : (
        <button type="button" className="button" ref={addButton} onClick={() => setAdding(true)}>
          Add a number…
        </button>
      )}
    </section>
  );
}
