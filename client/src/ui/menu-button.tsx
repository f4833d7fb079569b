import { useEffect, useEffectEvent, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useKeepInView } from '../lib/use-keep-in-view';

/**
 * One choice of a menu. `checked` makes it one of a set (a radio item: the current assignee).
 * `current` marks the choice in force the same way (a ✓, and the menu opens on it) on a plain
 * menuitem: for a menu whose items each do something when picked ("give it to Sam"), while the
 * button's own name says what is set ("Assignee: Sam Staff").
 */
export type TMenuItem = {
  key: string;
  /** The item's name, as a screen reader says it (and a test finds it). */
  label: string;
  /** Shown after the name, in grey (e.g. the time a preset stands for); not part of the name. */
  hint?: string;
  checked?: boolean;
  current?: boolean;
  /** With `checked`, an option turned on and off (a menuitemcheckbox): picking it leaves the menu open. */
  toggles?: boolean;
  onSelect: () => void;
};

type TProps = {
  /** What the button shows. */
  children: ReactNode;
  ariaLabel?: string;
  className?: string;
  /** The menu's name ("Snooze until", "Assign to"). */
  menuLabel: string;
  /** null while the choices load (`loading` says so meanwhile). */
  items: TMenuItem[] | null;
  loading?: string;
  /** Error text when the choices could not load. */
  error?: string | null;
  onOpenChange?: (open: boolean) => void;
  disabled?: boolean;
  /** Which edge of the button the menu lines up with, room allowing (it is kept in the window). */
  align?: 'start' | 'end';
};

const ROOM_BELOW_PX = 280;
const ITEM_SELECTOR = '[role="menuitem"], [role="menuitemradio"], [role="menuitemcheckbox"]';
const CURRENT_SELECTOR = '[role="menuitemradio"][aria-checked="true"], [aria-current="true"]';

/**
 * A button that opens a short menu, as the WAI-ARIA menu button pattern has it: Enter, Space or ↓
 * opens it on its current (or first) item, ↑/↓/Home/End move, Enter picks, Escape closes it and
 * gives the focus back to the button; a click elsewhere or Tab closes it too.
 */
export function MenuButton({
  children,
  ariaLabel,
  className = 'button small ghost',
  menuLabel,
  items,
  loading = 'Loading…',
  error,
  onOpenChange,
  disabled,
  align = 'start',
}: TProps) {
  const [open, setOpen] = useState(false);
  // Near the bottom of the window (the last rows of a list) it opens upwards, to stay in view.
  const [up, setUp] = useState(false);
  const menuId = useId();
  const wrapper = useRef<HTMLSpanElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  useKeepInView(menu, open);

  const setOpenTo = (value: boolean) => {
    if (value && button.current) setUp(window.innerHeight - button.current.getBoundingClientRect().bottom < ROOM_BELOW_PX);
    setOpen(value);
    onOpenChange?.(value);
  };
  const close = (refocus: boolean) => {
    setOpenTo(false);
    if (refocus) button.current?.focus();
  };

  // Opened (or its choices just loaded): the focus goes to the current choice, else the first.
  const loaded = items !== null;
  useEffect(() => {
    if (!open || !loaded) return;
    const all = [...(menu.current?.querySelectorAll<HTMLElement>(ITEM_SELECTOR) ?? [])];
    (all.find((item) => item.matches(CURRENT_SELECTOR)) ?? all[0])?.focus();
  }, [open, loaded]);

  // A press anywhere else closes it, leaving the focus where the press put it.
  const closeOnPressOutside = useEffectEvent((event: PointerEvent) => {
    if (!wrapper.current?.contains(event.target as Node)) setOpenTo(false);
  });
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => closeOnPressOutside(event);
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  const onMenuKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const all = [...(menu.current?.querySelectorAll<HTMLElement>(ITEM_SELECTOR) ?? [])];
    const at = all.indexOf(document.activeElement as HTMLElement);
    const moveTo = (index: number) => {
      event.preventDefault();
      all[(index + all.length) % all.length]?.focus();
    };
    if (event.key === 'ArrowDown') moveTo(at + 1);
    else if (event.key === 'ArrowUp') moveTo(at - 1);
    else if (event.key === 'Home') moveTo(0);
    else if (event.key === 'End') moveTo(all.length - 1);
    else if (event.key === 'Escape') {
      // Not the page's: Escape here closes the menu only.
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === 'Tab') close(false);
  };

  const pick = (item: TMenuItem) => {
    if (!item.toggles) close(true);
    item.onSelect();
  };

  return (
    <span className={`menu-button align-${align}${up ? ' drop-up' : ''}`} ref={wrapper}>
      <button
        ref={button}
        type="button"
        className={className}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={ariaLabel}
        disabled={disabled}
        onClick={() => setOpenTo(!open)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' && !open) {
            event.preventDefault();
            setOpenTo(true);
          }
        }}
      >
        {children}
      </button>
      {open && (
        <ul className="menu" id={menuId} role="menu" aria-label={menuLabel} ref={menu} onKeyDown={onMenuKeyDown}>
          {error ? (
            <li role="none" className="menu-note form-error">
              {error}
            </li>
          ) : items === null ? (
            <li role="none" className="menu-note muted">
              {loading}
            </li>
          ) : (
            items.map((item) => (
              <li key={item.key} role="none">
                <button
                  type="button"
                  className="menu-item"
                  role={item.checked === undefined ? 'menuitem' : item.toggles ? 'menuitemcheckbox' : 'menuitemradio'}
                  aria-checked={item.checked}
                  aria-current={item.current || undefined}
                  aria-label={item.hint ? item.label : undefined}
                  aria-describedby={item.hint ? `${menuId}-${item.key}-hint` : undefined}
                  tabIndex={-1}
                  onClick={() => pick(item)}
                >
                  <span className="menu-check" aria-hidden="true">
                    {/* A switch shows its box even when off, so it does not read as a command. */}
                    {item.toggles ? (item.checked ? '☑' : '☐') : item.checked || item.current ? '✓' : ''}
                  </span>
                  <span className="menu-label">{item.label}</span>
                  {item.hint && (
                    <span className="menu-hint" id={`${menuId}-${item.key}-hint`} aria-hidden="true">
                      {item.hint}
                    </span>
                  )}
                </button>
              </li>
            ))
          )}
        </ul>
      )}
    </span>
  );
}
