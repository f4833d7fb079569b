import { lazy, Suspense, type ReactNode } from 'react';
import { Redirect, Route, Switch, useRoute } from 'wouter';
import { Layout } from './layout';
import { trpc } from './lib/trpc';
import { InboxPage } from './features/inbox';
import { InvitePage, SignInPage, StepUpDialog } from './features/auth';

// Pages loaded on first visit each start their chunk in pages/, which imports the page through its
// feature's index.ts: other features import the same index.ts for small parts (a banner, a word),
// and a chunk that started at an index.ts would come along whole with each of them.
// Settings is visited rarely: keep it out of the initial bundle.
const SettingsPage = lazy(() => import('./pages/settings').then((m) => ({ default: m.SettingsPage })));
// Seen once, by someone the firm's policy holds at enrolment: the same.
const EnrolmentPage = lazy(() => import('./pages/settings').then((m) => ({ default: m.EnrolmentPage })));
// Directors only, and rarely: the same.
const AuditPage = lazy(() => import('./pages/audit').then((m) => ({ default: m.AuditPage })));
const RecordsPage = lazy(() => import('./pages/records').then((m) => ({ default: m.RecordsPage })));
// The inbox is the start page; client files and cases load when first opened.
const ClientsPage = lazy(() => import('./pages/clients').then((m) => ({ default: m.ClientsPage })));
const ClientPage = lazy(() => import('./pages/clients').then((m) => ({ default: m.ClientPage })));
const CasePage = lazy(() => import('./pages/clients').then((m) => ({ default: m.CasePage })));
// The person's scheduled sends, opened now and then from the top bar.
const ScheduledPage = lazy(() => import('./pages/scheduling').then((m) => ({ default: m.ScheduledPage })));

export function App() {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  // An invitation link is opened by someone with no account yet: its page, signed in or not.
  const [onInvite, invite] = useRoute('/invite/:token');
  if (onInvite) return <InvitePage token={invite.token} />;
  if (me.isPending)
    return (
      <div className="page-loading" role="status">
        Loading…
      </div>
    );
  if (me.isError)
    return (
      <div className="page-error" role="alert">
        Could not reach the server. Refresh to try again.
      </div>
    );
  if (!me.data) return <SignInPage />;
  // Held at enrolment by the firm's policy: nothing else until a second factor is set up.
  if (me.data.mustEnrol)
    return (
      <Loading what="two-step sign-in">
        <EnrolmentPage />
      </Loading>
    );
  return (
    <Layout user={me.data}>
      <StepUpDialog />
      <Switch>
        <Route path="/clients">
          <Loading what="clients">
            <ClientsPage />
          </Loading>
        </Route>
        <Route path="/clients/:clientId">
          {(params) => (
            <Loading what="client">
              <ClientPage clientId={Number(params.clientId)} />
            </Loading>
          )}
        </Route>
        <Route path="/cases/:caseId">
          {(params) => (
            <Loading what="case">
              <CasePage caseId={Number(params.caseId)} />
            </Loading>
          )}
        </Route>
        <Route path="/inbox">{() => <InboxPage threadRef={null} />}</Route>
        <Route path="/inbox/client/:clientId">{(params) => <InboxPage threadRef={{ clientId: Number(params.clientId) }} />}</Route>
        <Route path="/inbox/phone/:phone">{(params) => <InboxPage threadRef={{ phone: params.phone }} />}</Route>
        <Route path="/scheduled">
          <Loading what="your scheduled messages">
            <ScheduledPage />
          </Loading>
        </Route>
        <Route path="/settings">
          <Loading what="settings">
            <SettingsPage role={me.data.role} />
          </Loading>
        </Route>
        <Route path="/audit">
          {/* The server refuses anyone else; the page says so at once instead of after asking. */}
          {me.data.role === 'director' ? (
            <Loading what="the audit trail">
              <AuditPage />
            </Loading>
          ) : (
            <p className="form-error" role="alert">
              Only directors can read the audit trail.
            </p>
          )}
        </Route>
        <Route path="/records">
          {me.data.role === 'director' ? (
            <Loading what="records">
              <RecordsPage />
            </Loading>
          ) : (
            <p className="form-error" role="alert">
              Only directors can manage retention, legal holds and erasure requests.
            </p>
          )}
        </Route>
        <Route path="/">
          <Redirect to="/inbox" />
        </Route>
        <Route>
          <div className="empty-state">
            <h1>Page not found</h1>
            <a href="/clients">Back to clients</a>
          </div>
        </Route>
      </Switch>
    </Layout>
  );
}

/** A page that loads on first visit, saying what is on its way meanwhile. */
function Loading({ what, children }: { what: string; children: ReactNode }) {
  return <Suspense fallback={<p className="muted">Loading {what}…</p>}>{children}</Suspense>;
}
