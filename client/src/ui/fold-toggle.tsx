/** A small button that folds a part of a row open or shut (Settings › People: a person's walls, their sessions). */
export function FoldToggle({
  open,
  onToggle,
  label,
  ariaLabel,
  controls,
}: {
  open: boolean;
  onToggle: () => void;
  label: string;
  ariaLabel: string;
  /** The id of the part it folds (named only while it is shown). */
  controls: string;
}) {
  return (
    <button
      type="button"
      className="button small ghost walls-toggle"
      aria-expanded={open}
      aria-controls={open ? controls : undefined}
      aria-label={ariaLabel}
      onClick={onToggle}
    >
      {label} <span aria-hidden="true">{open ? '▴' : '▾'}</span>
    </button>
  );
}
