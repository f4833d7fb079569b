import { useEffect, useEffectEvent, useId, useRef, useState } from 'react';
import { Link } from 'wouter';
import { trpc } from '../../lib/trpc';
import { NotificationList } from './notification-list';

/** A bell drawn in the text's colour: no emoji font needed. */
function BellIcon() {
  return (
    <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M10 2a5 5 0 0 0-5 5v2.6c0 .7-.2 1.4-.6 2L3.2 13.5A1 1 0 0 0 4 15h12a1 1 0 0 0 .8-1.5l-1.2-1.9c-.4-.6-.6-1.3-.6-2V7a5 5 0 0 0-5-5Zm-2 14a2 2 0 0 0 4 0H8Z"
      />
    </svg>
  );
}

/**
 * The top bar's bell: how many notifications are unread, and the list (opened by the bell): each
 * opens its conversation, at the message when it names one; Mark all read. Escape closes it from
 * anywhere in it (the focus goes back to the bell); so does the focus leaving it (Tab past its
 * end) or a press elsewhere.
 */
export function NotificationBell({ myId }: { myId: number }) {
  const [open, setOpen] = useState(false);
  const unread = trpc.notifications.unreadCount.useQuery().data?.count ?? 0;
  const panelId = useId();
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const closeOnPressOutside = useEffectEvent((event: PointerEvent) => {
    if (!wrapper.current?.contains(event.target as Node)) setOpen(false);
  });
  // On the document, not the panel: a press on the panel's text, or a control that went away
  // (an older page loaded), leaves the focus on the page's body, where the panel hears no key.
  const closeOnEscape = useEffectEvent((event: KeyboardEvent) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    const focus = document.activeElement;
    if (focus && focus !== document.body && !wrapper.current?.contains(focus)) return;
    event.preventDefault();
    setOpen(false);
    button.current?.focus();
  });
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => closeOnPressOutside(event);
    const onKeyDown = (event: KeyboardEvent) => closeOnEscape(event);
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);
  return (
    <div
      className="notifications"
      ref={wrapper}
      onBlur={(event) => {
        // Tabbed (or clicked) on to something else on the page. Focus going nowhere (the window
        // left, a control removed) closes nothing.
        if (open && event.relatedTarget instanceof Node && !wrapper.current?.contains(event.relatedTarget)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        className="bell-button"
        aria-label={unread > 0 ? `Notifications (${unread} unread)` : 'Notifications'}
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        <BellIcon />
        {unread > 0 && (
          <span className="bell-badge" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </button>
      {open && (
        // Focusable (not in the Tab order) so that a press on its text keeps the focus inside it.
        <div className="notifications-panel" id={panelId} tabIndex={-1}>
          <NotificationList myId={myId} unread={unread} onOpenOne={() => setOpen(false)} />
          {/* Also here: on a phone a director's top bar has no room for the Scheduled link. */}
          <p className="notifications-foot">
            <Link href="/scheduled" onClick={() => setOpen(false)}>
              Your scheduled messages
            </Link>
          </p>
        </div>
      )}
    </div>
  );
}
