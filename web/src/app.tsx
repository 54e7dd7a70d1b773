// The shell: the session, the top bar, and the page for the current path. Signed-out visitors
// see the log-in and sign-up pages only.
import { useCallback, useEffect, useState } from 'react';
import { api, ApiFailure, call, type Developer } from './api';
import { match, navigate, usePath } from './router';
import { SessionContext } from './session';
import { ErrorBox, Link, Progress } from './components/ui';
import { AuthPage } from './pages/auth';
import { AccountPage } from './pages/account';
import { ProjectsPage } from './pages/projects';
import { ProjectShell } from './pages/project-shell';

export function App() {
  const path = usePath();
  const [developer, setDeveloper] = useState<Developer | null | undefined>(undefined);
  const [down, setDown] = useState<unknown>(undefined);

  const refresh = useCallback(async () => {
    try {
      const data = await call(api.GET('/api/user/me'));
      setDeveloper(data.data.developer);
      setDown(undefined);
    } catch (err) {
      // Signed out is a 401; anything else (server down, network) is said as such, with a retry.
      if (err instanceof ApiFailure && err.status === 401) setDeveloper(null);
      else setDown(err);
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  useEffect(() => {
    if (developer === null && path !== '/login' && path !== '/signup') navigate('/login', true);
    if (developer && (path === '/login' || path === '/signup')) navigate('/', true);
  }, [developer, path]);

  const logout = async () => {
    await call(api.POST('/api/auth/logout')).catch(() => undefined);
    setDeveloper(null);
    navigate('/login');
  };

  if (developer === undefined && down) {
    return (
      <main id="main" className="narrow">
        <h1>The dashboard cannot load</h1>
        <ErrorBox error={down} />
        <button type="button" onClick={() => void refresh()}>
          Try again
        </button>
      </main>
    );
  }
  if (developer === undefined) return <Progress label="Loading the dashboard…" />;

  let page;
  if (!developer) page = <AuthPage mode={path === '/signup' ? 'signup' : 'login'} />;
  else if (path === '/account') page = <AccountPage />;
  else if (path === '/' || path === '/projects') page = <ProjectsPage />;
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
