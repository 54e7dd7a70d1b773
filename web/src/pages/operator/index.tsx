// The operator's area (/admin): the installation, its developers, every project, its plans and,
// while mail goes to the outbox folder, the mails. Only the operator (the first account) gets
// here; anyone else sees a 403 page, and no link leads them to it.
import { useEffect, useState } from 'react';
import { useSession } from '../../session';
import { Link } from '../../components/ui';
import { OverviewPage } from './overview';
import { DevelopersPage } from './developers';
import { ProjectsPage } from './projects';
import { MailPage } from './mail';
import { PlansPage } from './plans';

const SECTIONS = [
  { path: '', label: 'Overview' },
  { path: '/developers', label: 'Developers' },
  { path: '/projects', label: 'Projects' },
  { path: '/plans', label: 'Plans' },
  { path: '/mail', label: 'Mail' },
] as const;

export function OperatorShell({ path }: { path: string }) {
  const { developer } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  if (!developer?.isOperator) {
    return (
      <main id="main" className="narrow">
        <h1>403: for the operator only</h1>
        <p>
          This page belongs to the operator of this installation (its first account). Your account can open
          your projects and your account settings. <Link to="/">Go to your projects</Link>.
        </p>
      </main>
    );
  }
  const rest = path.slice('/admin'.length).replace(/\/+$/, '');
  const here = SECTIONS.find((s) => s.path === rest);
  let page;
  if (rest === '') page = <OverviewPage />;
  else if (rest === '/developers') page = <DevelopersPage />;
  else if (rest === '/projects') page = <ProjectsPage />;
  else if (rest === '/plans') page = <PlansPage />;
  else if (rest === '/mail') page = <MailPage />;
  else
    page = (
      <>
        <h1>Page not found</h1>
        <p>
          Nothing lives at this address. <Link to="/admin">Go to the overview</Link>.
        </p>
      </>
    );
  return (
    <div className="project">
      <nav className="sidebar" aria-label="Operator">
        <div className="sidebar-head">
          <p className="project-name">Operator</p>
          <button
            type="button"
            className="secondary menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="operator-menu"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            {menuOpen ? 'Close menu' : `Menu${here ? `: ${here.label}` : ''}`}
          </button>
        </div>
        <ul id="operator-menu" className={menuOpen ? 'open' : undefined}>
          {SECTIONS.map((s) => (
            <li key={s.path}>
              <Link to={`/admin${s.path}`} className={s === here ? 'active' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content">
        {page}
      </main>
    </div>
  );
}
