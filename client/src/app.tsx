import { lazy, Suspense } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { Layout } from './components/layout';
import { trpc } from './lib/trpc';
import { CasePage } from './pages/case-page';
import { ClientPage } from './pages/client-page';
import { ClientsPage } from './pages/clients-page';
import { InboxPage } from './pages/inbox-page';
import { SignInPage } from './pages/sign-in-page';

// Settings is visited rarely: keep it out of the initial bundle.
const SettingsPage = lazy(() => import('./pages/settings-page').then((m) => ({ default: m.SettingsPage })));
// Directors only, and rarely: the same.
const AuditPage = lazy(() => import('./pages/audit-page').then((m) => ({ default: m.AuditPage })));

export function App() {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  if (me.isPending) return <div className="page-loading" role="status">Loading…</div>;
  if (me.isError) return <div className="page-error" role="alert">Could not reach the server. Refresh to try again.</div>;
  if (!me.data) return <SignInPage />;
  return (
    <Layout user={me.data}>
      <Switch>
        <Route path="/clients" component={ClientsPage} />
        <Route path="/clients/:clientId">{(params) => <ClientPage clientId={Number(params.clientId)} />}</Route>
        <Route path="/cases/:caseId">{(params) => <CasePage caseId={Number(params.caseId)} />}</Route>
        <Route path="/inbox">{() => <InboxPage threadRef={null} />}</Route>
        <Route path="/inbox/client/:clientId">{(params) => <InboxPage threadRef={{ clientId: Number(params.clientId) }} />}</Route>
        <Route path="/inbox/phone/:phone">{(params) => <InboxPage threadRef={{ phone: params.phone }} />}</Route>
        <Route path="/settings">
          <Suspense fallback={<p className="muted">Loading settings…</p>}>
            <SettingsPage role={me.data.role} />
          </Suspense>
        </Route>
        <Route path="/audit">
          <Suspense fallback={<p className="muted">Loading the audit trail…</p>}>
            <AuditPage />
          </Suspense>
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
