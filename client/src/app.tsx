import { Redirect, Route, Switch } from 'wouter';
import { Layout } from './components/layout';
import { trpc } from './lib/trpc';
import { CasePage } from './pages/case-page';
import { ClientPage } from './pages/client-page';
import { ClientsPage } from './pages/clients-page';
import { SignInPage } from './pages/sign-in-page';

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
        {/* /inbox and /settings (chat) arrive with their issues; they slot in here. */}
        <Route path="/">
          <Redirect to="/clients" />
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
