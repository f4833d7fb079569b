import { trpc } from '../../lib/trpc';

/**
 * The firm number the list is narrowed to, from the address's `number`. Until the numbers have
 * loaded the address is trusted (so the list is not read twice); then only an active number counts,
 * and only when there is more than one.
 */
export function useNumberFilter(asked: string | null): { numberId: number | undefined; choices: { id: number; label: string }[] } {
  const numbers = trpc.numbers.list.useQuery(undefined, { staleTime: 60_000 });
  const active = (numbers.data ?? []).filter((n) => n.active);
  const choices = active.length > 1 ? active.map(({ id, label }) => ({ id, label })) : [];
  const id = asked && /^[1-9]\d*$/.test(asked) ? Number(asked) : undefined;
  if (id === undefined) return { numberId: undefined, choices };
  if (!numbers.data) return { numberId: id, choices };
  return { numberId: choices.some((c) => c.id === id) ? id : undefined, choices };
}

/** "Number": all of the firm's numbers, or one; shown only when the firm has more than one. */
export function NumberFilter({
  value,
  choices,
  onChange,
}: {
  value: number | undefined;
  choices: { id: number; label: string }[];
  onChange: (numberId: number | undefined) => void;
}) {
  if (choices.length === 0) return null;
  return (
    <label className="compact-field inbox-number-filter">
      <span>Number</span>
      <select value={value ?? ''} onChange={(e) => onChange(e.target.value ? Number(e.target.value) : undefined)}>
        <option value="">All numbers</option>
        {choices.map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}
