import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { handleUnauthorized } from './features/auth';
import { useLiveUpdates } from './features/inbox';
import { trpc } from './lib/trpc';
import { forgetUnsentWork, useLeaveGuard, useOutboxRunner } from './features/composer';
import { useOnline } from './lib/use-online';
import { NotificationBell } from './features/notifications';
import { ClockIcon } from './ui/clock-icon';
import { SignOutIcon } from './ui/sign-out-icon';

type TProps = { user: { id: number; name: string; role: 'director' | 'staff' }; children: ReactNode };

const NAV = [
  { href: '/inbox', label: 'Inbox', directorOnly: false },
  { href: '/clients', label: 'Clients', directorOnly: false },
  { href: '/audit', label: 'Audit', directorOnly: true },
  { href: '/records', label: 'Records', directorOnly: true },
  { href: '/settings', label: 'Settings', directorOnly: false },
] as const;

export function Layout({ user, children }: TProps) {
  const [location] = useLocation();
  useLiveUpdates();
  // Counted by the server over the whole inbox, not over the conversations loaded on screen.
  const unreadCount = trpc.inbox.unreadCount.useQuery();
  const unread = unreadCount.data?.messages ?? 0;
  // The tab says how many messages wait, whichever tab the person is in.
  useEffect(() => {
    document.title = unread > 0 ? `(${unread}) Firm Chat` : 'Firm Chat';
  }, [unread]);
  const online = useOnline();
  const threadOpen = /^\/inbox\/(client|phone)\//.test(location);
  // Messages written offline (or whose answer was lost) are sent from here, whichever page is open;
  // one refused because the session ended takes the app to the sign-in page, as any request would.
  const queryClient = useQueryClient();
  useOutboxRunner(user, (error) => handleUnauthorized(queryClient, error));
  const unsent = useLeaveGuard();
  // A full page load after sign-out drops every cached record from memory.
  const signOut = trpc.auth.signOut.useMutation({ onSettled: () => window.location.assign('/') });
  // The person's drafts and unsent messages leave with them: the next person at this browser sees none.
  const signOutNow = () => void forgetUnsentWork({ leaving: true }).then(() => signOut.mutate());
  return (
    <div className="app-shell">
      <nav className="skip-links" aria-label="Skip links">
        <a href="#main" onClick={focusTarget('main')}>
          Skip to main content
        </a>
        {threadOpen && (
          <>
            <a href="#conversation" onClick={focusTarget('conversation')}>
              Skip to conversation
            </a>
            <a href="#composer-text" onClick={focusTarget('composer-text')}>
              Skip to message box
            </a>
          </>
        )}
      </nav>
      <header className="topbar" data-role={user.role}>
        <Link href="/" className="brand" aria-label="Firm Chat home">
          <span className="brand-mark" aria-hidden="true" />
          Firm Chat
        </Link>
        <nav aria-label="Main">
          {NAV.filter((item) => !item.directorOnly || user.role === 'director').map((item) => (
            <Link
              key={item.href}
              href={item.href}
              className={location.startsWith(item.href) ? 'nav-link active' : 'nav-link'}
              aria-current={location.startsWith(item.href) ? 'page' : undefined}
            >
              {item.label}
              {item.href === '/inbox' && unread > 0 && (
                <span className="nav-badge" aria-label={`${unread} unread`}>
                  {unread}
                </span>
              )}
            </Link>
          ))}
        </nav>
        <div className="user-menu">
          {/* Beside the bell, not among the places: a sixth word would not fit a phone's top bar (and a
              director's phone has no room even for the clock: the bell's panel links there too). */}
          <Link
            href="/scheduled"
            className={location.startsWith('/scheduled') ? 'scheduled-link active' : 'scheduled-link'}
            aria-current={location.startsWith('/scheduled') ? 'page' : undefined}
          >
            <ClockIcon size={18} />
            <span className="scheduled-link-text">Scheduled</span>
          </Link>
          <NotificationBell myId={user.id} />
          <span className="user-name">
            {user.name} <span className="role-badge">{user.role}</span>
          </span>
          <SignOutButton unsent={unsent} pending={signOut.isPending} onSignOut={signOutNow} />
        </div>
      </header>
      {!online && (
        <p className="offline-banner" role="status">
          Offline — messages will send when the connection is back.
        </p>
      )}
      <main className="content" id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** A skip link moves focus (not only the scroll position) to its target, when it is on the page. */
function focusTarget(id: string) {
  return (event: MouseEvent<HTMLAnchorElement>) => {
    const target = document.getElementById(id);
    if (!target) return;
    event.preventDefault();
    target.focus();
  };
}

/** Sign out; with messages or a file not sent yet, it says they will be lost and asks first. */
function SignOutButton({ unsent, pending, onSignOut }: { unsent: number; pending: boolean; onSignOut: () => void }) {
  const [asking, setAsking] = useState(false);
  return (
    <span className="sign-out">
      <button
        type="button"
        className="button ghost"
        onClick={() => (unsent > 0 ? setAsking(true) : onSignOut())}
        disabled={pending}
        aria-expanded={unsent > 0 ? asking : undefined}
      >
        {/* The words stay its name; a director's phone shows the door alone (client/README.md, the Inbox). */}
        <SignOutIcon />
        <span className="sign-out-text">Sign out</span>
      </button>
      {asking && unsent > 0 && (
        <span className="sign-out-confirm" role="group" aria-label="Sign out with unsent work">
          <span>
            {unsent === 1 ? 'A message (or file) not sent yet' : `${unsent} messages or files not sent yet`} will be deleted from this
            browser.
          </span>
          <span className="button-row">
            <button type="button" className="button small danger" onClick={onSignOut} disabled={pending}>
              Delete and sign out
            </button>
            <button type="button" className="button small ghost" onClick={() => setAsking(false)}>
              Keep
            </button>
          </span>
        </span>
      )}
    </span>
  );
}
