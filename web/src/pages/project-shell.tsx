// One project: loads it once, shows its navigation and the page for the rest of the path.
import { api, call, type Project } from '../api';
import { match } from '../router';
import { ErrorBox, Link, Progress } from '../components/ui';
import { useLoad } from '../hooks';
import { UsagePage } from './usage';
import { CollectionsPage } from './collections';
import { CollectionEditorPage } from './collection-editor';
import { DataBrowserPage } from './data/grid-page';
import { DocumentPage } from './data/document';
import { EndUsersPage } from './end-users';
import { FilesPage } from './files';
import { MembersPage } from './members';
import { KeysPage } from './keys';
import { SettingsPage } from './settings';
import { ApiReferencePage } from './api-reference';
import { RequestLogPage } from './request-log';

export interface ProjectPageProps {
  project: Project;
  reload: () => Promise<void>;
}

const SECTIONS: { path: string; label: string; adminOnly?: boolean }[] = [
  { path: '', label: 'Overview' },
  { path: '/collections', label: 'Collections' },
  { path: '/users', label: 'End users' },
  { path: '/files', label: 'Files' },
  { path: '/logs', label: 'Request log' },
  { path: '/members', label: 'Members' },
  { path: '/keys', label: 'API keys', adminOnly: true },
  { path: '/settings', label: 'Settings', adminOnly: true },
  { path: '/api', label: 'API reference' },
];

function pageFor(rest: string, props: ProjectPageProps) {
  let p: Record<string, string> | undefined;
  if (rest === '') return <UsagePage {...props} />;
  if (rest === '/collections') return <CollectionsPage {...props} />;
  if (rest === '/collections/new') return <CollectionEditorPage key="new" {...props} />;
  if ((p = match('/collections/:name', rest)))
    return <CollectionEditorPage key={p.name} {...props} name={p.name} />;
  if ((p = match('/data/:name', rest))) return <DataBrowserPage key={p.name} {...props} name={p.name!} />;
  if ((p = match('/data/:name/new', rest))) return <DocumentPage key="new" {...props} name={p.name!} />;
  if ((p = match('/data/:name/:id', rest)))
    return <DocumentPage key={p.id} {...props} name={p.name!} id={p.id} />;
  if (rest === '/users') return <EndUsersPage {...props} />;
  if (rest === '/files') return <FilesPage {...props} />;
  if (rest === '/logs') return <RequestLogPage {...props} />;
  if (rest === '/members') return <MembersPage {...props} />;
  if (rest === '/keys') return <KeysPage {...props} />;
  if (rest === '/settings') return <SettingsPage {...props} />;
  if (rest === '/api') return <ApiReferencePage {...props} />;
  return <p>Nothing lives at this address.</p>;
}

export function ProjectShell({ projectId, path }: { projectId: string; path: string }) {
  const project = useLoad(
    async () =>
      (await call(api.GET('/api/projects/{projectId}', { params: { path: { projectId } } }))).data.project,
    [projectId],
  );
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
  if (!project.value) return <Progress label="Loading the project…" />;
  const current = project.value;
  const reload = async () => {
    await project.reload();
  };
  const section = '/' + (rest.split('/')[1] ?? '');
  return (
    <div className="project">
      <nav className="sidebar" aria-label="Project">
        <p className="project-name">{current.name}</p>
        <ul>
          {SECTIONS.filter((s) => !s.adminOnly || current.role === 'admin').map((s) => (
            <li key={s.path}>
              <Link
                to={base + s.path}
                className={
                  (
                    s.path === ''
                      ? rest === ''
                      : section === s.path || (s.path === '/collections' && section === '/data')
                  )
                    ? 'active'
                    : undefined
                }
              >
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
