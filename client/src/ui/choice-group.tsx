import { useRef, type KeyboardEvent } from 'react';

type TProps<T extends string> = {
  /** What is being chosen, for screen readers ("Show", "State"). */
  label: string;
  options: readonly (readonly [T, string])[];
  value: T;
  onChange: (value: T) => void;
  className: string;
  /** Each option's class; `active` is added to the chosen one. */
  optionClass: string;
  titleOf?: (value: T) => string | undefined;
};

/**
 * A row of buttons of which one is chosen (the inbox's filters, its state switch): a radio group
 * to assistive technology, one Tab stop, and the arrow keys move the choice, as in any radio group.
 */
export function ChoiceGroup<T extends string>({ label, options, value, onChange, className, optionClass, titleOf }: TProps<T>) {
  const group = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step =
      event.key === 'ArrowRight' || event.key === 'ArrowDown' ? 1 : event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const at = options.findIndex(([v]) => v === value);
    const next = (at + step + options.length) % options.length;
    onChange(options[next]![0]);
    group.current?.querySelectorAll<HTMLButtonElement>('[role="radio"]')[next]?.focus();
  };
  return (
    <div ref={group} className={className} role="radiogroup" aria-label={label} onKeyDown={onKeyDown}>
      {options.map(([option, text]) => (
        <button
          key={option}
          type="button"
          role="radio"
          aria-checked={value === option}
          tabIndex={value === option ? 0 : -1}
          title={titleOf?.(option)}
          className={value === option ? `${optionClass} active` : optionClass}
          onClick={() => onChange(option)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}
