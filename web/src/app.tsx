// The shell: the session, the top bar, and the page for the current path. Signed-out visitors
// see the log-in and sign-up pages (and the page a sign-up mail links to) only; an ended session comes back to log-in with a notice and,
// after it, to the page that was asked for.
import { useEffect, useState } from 'react';
import { QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { api, call, SESSION_ENDED } from './api';
import { match, navigate, usePath } from './router';
import { queryClient } from './query';
import { SessionContext } from './session';
import { meKey, useMe, useSetMe } from './data/account';
import { ErrorBox, Link, Progress } from './components/ui';
import { AuthPage } from './pages/auth';
import { ConfirmSignupPage } from './pages/auth/confirm';
import { InvitedSignupPage } from './pages/auth/invited';
import { AccountPage } from './pages/account';
import { ProjectsPage } from './pages/projects';
import { ProjectShell } from './pages/project-shell';
import { AcceptInvitationPage } from './pages/invitations/accept';
import { OperatorShell } from './pages/operator';
import { AUTH_PATHS, pageAfterLogin } from './next-page';
import { dropDraftsOfOthers, keepDrafts } from './drafts';
import type { Developer } from './api';

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <Shell />
    </QueryClientProvider>
  );
}

function Shell() {
  const path = usePath();
  const me = useMe();
  const setMe = useSetMe();
  const client = useQueryClient();
  const [ended, setEnded] = useState(false);
  const developer = me.data;

  useEffect(() => {
    const onEnded = () => {
      const was = client.getQueryData<Developer | null>(meKey);
      // Before the log-in page replaces the form: what was being typed is kept for this developer.
      if (was) keepDrafts(was.id);
      if (was) setEnded(true);
      setMe(null);
    };
    window.addEventListener(SESSION_ENDED, onEnded);
    return () => window.removeEventListener(SESSION_ENDED, onEnded);
  }, [client, setMe]);

  useEffect(() => {
    if (developer === null && !AUTH_PATHS.includes(path)) {
      const asked = location.pathname + location.search;
      navigate(asked === '/' ? '/login' : `/login?next=${encodeURIComponent(asked)}`, true);
    }
    if (developer && AUTH_PATHS.includes(path)) {
      setEnded(false);
      dropDraftsOfOthers(developer.id);
      navigate(pageAfterLogin(path, developer.email), true);
    }
  }, [developer, path]);

  const logout = async () => {
    await call(api.POST('/api/auth/logout')).catch(() => undefined);
    setMe(null);
    navigate('/login');
  };

  if (developer === undefined && me.error) {
    return (
      <main id="main" className="narrow">
        <h1>The dashboard cannot load</h1>
        <ErrorBox error={me.error} />
        <button type="button" onClick={() => void me.refetch()}>
          Try again
        </button>
      </main>
    );
  }
  if (developer === undefined) return <Progress label="Loading the dashboard…" />;

  let page;
  if (!developer && path === '/signup/confirm') page = <ConfirmSignupPage />;
  else if (!developer && path === '/signup' && new URLSearchParams(location.search).has('invitation'))
    page = <InvitedSignupPage />;
  else if (!developer) {
    page = (
      <AuthPage
        mode={path === '/signup' ? 'signup' : 'login'}
        notice={ended ? 'Your session ended. Log in again.' : undefined}
      />
    );
  } else if (path === '/account') page = <AccountPage />;
  else if (path === '/invitations/accept') page = <AcceptInvitationPage />;
  else if (path === '/' || path === '/projects') page = <ProjectsPage />;
  else if (path === '/admin' || path.startsWith('/admin/')) page = <OperatorShell path={path} />;
  else {
    const params = match('/projects/:projectId', path.split('/').slice(0, 3).join('/'));
    page = params ? (
      <ProjectShell projectId={params.projectId!} path={path} />
    ) : (
      <main id="main">
        <h1>Page not found</h1>
        <p>
          Nothing lives at this address. <Link to="/">Go to your projects</Link>.
        </p>
      </main>
    );
  }

  const refresh = async () => {
    await client.invalidateQueries({ queryKey: meKey });
  };
  return (
    <SessionContext.Provider value={{ developer, refresh }}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          mongobaas
        </Link>
        {developer && (
          <nav aria-label="Account">
            <Link to="/">Projects</Link>
            {developer.isOperator && <Link to="/admin">Operator</Link>}
            <Link to="/account">{developer.email}</Link>
            <button type="button" className="link" onClick={logout}>
              Log out
            </button>
          </nav>
        )}
      </header>
      {page}
    </SessionContext.Provider>
  );
}
