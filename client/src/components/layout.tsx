import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useLiveUpdates } from '../lib/live-updates';
import { trpc } from '../lib/trpc';

type TProps = { user: { name: string; role: 'director' | 'staff' }; children: ReactNode };

const NAV = [
  { href: '/inbox', label: 'Inbox', directorOnly: false },
  { href: '/clients', label: 'Clients', directorOnly: false },
  { href: '/audit', label: 'Audit', directorOnly: true },
  { href: '/settings', label: 'Settings', directorOnly: false },
] as const;

export function Layout({ user, children }: TProps) {
  const [location] = useLocation();
  useLiveUpdates();
  // Counted by the server over the whole inbox, not over the conversations loaded on screen.
  const unreadCount = trpc.inbox.unreadCount.useQuery();
  const unread = unreadCount.data?.messages ?? 0;
  // A full page load after sign-out drops every cached record from memory.
  const signOut = trpc.auth.signOut.useMutation({ onSettled: () => window.location.assign('/') });
  return (
    <div className="app-shell">
      <header className="topbar">
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
          <span className="user-name">
            {user.name} <span className="role-badge">{user.role}</span>
          </span>
          <button type="button" className="button ghost" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <main className="content">{children}</main>
    </div>
  );
}
