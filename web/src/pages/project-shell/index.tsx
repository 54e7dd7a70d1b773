// One project: loads it once (TanStack Query), shows its navigation (a toggle at phone width) and
// the page for the rest of the path.
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { Project } from '../../api';
import { projectKeys, useProject } from '../../data/projects';
import { ErrorBox, Link, Progress } from '../../components/ui';
import { pageFor, SECTIONS } from './routes';

export interface ProjectPageProps {
  project: Project;
  reload: () => Promise<void>;
}

export function ProjectShell({ projectId, path }: { projectId: string; path: string }) {
  const project = useProject(projectId);
  const client = useQueryClient();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  const base = `/projects/${projectId}`;
  const rest = path.slice(base.length).replace(/\/+$/, '');

  if (project.error) {
    return (
      <main id="main">
        <ErrorBox error={project.error} />
        <Link to="/">Back to your projects</Link>
      </main>
    );
  }
  if (!project.data) return <Progress label="Loading the project…" />;
  const current = project.data;
  const reload = async () => {
    await client.invalidateQueries({ queryKey: projectKeys.one(projectId) });
  };
  const section = '/' + (rest.split('/')[1] ?? '');
  const sections = SECTIONS.filter((s) => !s.adminOnly || current.role === 'admin');
  const here = sections.find((s) =>
    s.path === '' ? rest === '' : section === s.path || (s.path === '/collections' && section === '/data'),
  );
  return (
    <div className="project">
      <nav className="sidebar" aria-label="Project">
        <div className="sidebar-head">
          <p className="project-name">{current.name}</p>
          <button
            type="button"
            className="secondary menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="project-menu"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            {menuOpen ? 'Close menu' : `Menu${here ? `: ${here.label}` : ''}`}
          </button>
        </div>
        <ul id="project-menu" className={menuOpen ? 'open' : undefined}>
          {sections.map((s) => (
            <li key={s.path}>
              <Link to={base + s.path} className={s === here ? 'active' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content">
        {pageFor(rest, { project: current, reload })}
      </main>
    </div>
  );
}
