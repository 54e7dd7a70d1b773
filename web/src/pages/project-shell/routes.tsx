// The project's pages: the menu's sections and the page for each path under /projects/:id.
import { match } from '../../router';
import { UsagePage } from '../usage';
import { CollectionsPage } from '../collections';
import { CollectionEditorPage } from '../collection-editor';
import { IndexesPage } from '../indexes';
import { DataBrowserPage } from '../data/grid-page';
import { DocumentPage } from '../data/document';
import { EndUsersPage } from '../end-users';
import { FilesPage } from '../files';
import { MembersPage } from '../members';
import { KeysPage } from '../keys';
import { SettingsPage } from '../settings';
import { ApiReferencePage } from '../api-reference';
import { WebhooksPage } from '../webhooks';
import { WebhookPage } from '../webhooks/webhook';
import { FunctionsPage } from '../functions';
import { FunctionPage } from '../functions/function';
import { MailPage } from '../mail';
import { StoragePage } from '../storage';
import { RequestLogPage } from '../request-log';
import { DatabasePage } from '../database';
import { AiPage } from '../ai';
import { BackupsPage } from '../backups';
import type { ProjectPageProps } from '.';
import { ADMINS_ONLY, AdminsOnlyPage } from './admins-only';

export const SECTIONS: { path: string; label: string; adminOnly?: boolean }[] = [
  { path: '', label: 'Overview' },
  { path: '/collections', label: 'Collections' },
  { path: '/users', label: 'End users' },
  { path: '/files', label: 'Files' },
  { path: '/logs', label: 'Request log' },
  { path: '/webhooks', label: 'Webhooks', adminOnly: true },
  { path: '/functions', label: 'Functions' },
  { path: '/mail', label: 'Mail', adminOnly: true },
  { path: '/storage', label: 'Storage', adminOnly: true },
  { path: '/database', label: 'Database', adminOnly: true },
  { path: '/backups', label: 'Backups', adminOnly: true },
  { path: '/ai', label: 'AI tools' },
  { path: '/members', label: 'Members' },
  { path: '/keys', label: 'API keys', adminOnly: true },
  { path: '/settings', label: 'Settings', adminOnly: true },
  { path: '/api', label: 'API reference' },
];

export function pageFor(rest: string, props: ProjectPageProps) {
  let p: Record<string, string> | undefined;
  // An admin-only page opened by its address as a member: what only admins can do, no controls.
  const section = '/' + (rest.split('/')[1] ?? '');
  if (ADMINS_ONLY[section] && props.project.role !== 'admin')
    return <AdminsOnlyPage section={section} projectId={props.project.id} />;
  if (rest === '') return <UsagePage {...props} />;
  if (rest === '/collections') return <CollectionsPage {...props} />;
  if (rest === '/collections/new') return <CollectionEditorPage key="new" {...props} />;
  if ((p = match('/collections/:name', rest)))
    return <CollectionEditorPage key={p.name} {...props} name={p.name} />;
  if ((p = match('/collections/:name/indexes', rest)))
    return <IndexesPage key={p.name} {...props} name={p.name!} />;
  if ((p = match('/data/:name', rest))) return <DataBrowserPage key={p.name} {...props} name={p.name!} />;
  if ((p = match('/data/:name/new', rest))) return <DocumentPage key="new" {...props} name={p.name!} />;
  if ((p = match('/data/:name/:id', rest)))
    return <DocumentPage key={p.id} {...props} name={p.name!} id={p.id} />;
  if (rest === '/users') return <EndUsersPage {...props} />;
  if (rest === '/files') return <FilesPage {...props} />;
  if (rest === '/logs') return <RequestLogPage {...props} />;
  if (rest === '/webhooks') return <WebhooksPage {...props} />;
  if ((p = match('/webhooks/:webhookId', rest)))
    return <WebhookPage key={p.webhookId} {...props} webhookId={p.webhookId!} />;
  if (rest === '/functions') return <FunctionsPage {...props} />;
  if ((p = match('/functions/:functionId', rest)))
    return <FunctionPage key={p.functionId} {...props} functionId={p.functionId!} />;
  if (rest === '/mail') return <MailPage {...props} />;
  if (rest === '/storage') return <StoragePage {...props} />;
  if (rest === '/database') return <DatabasePage {...props} />;
  if (rest === '/backups') return <BackupsPage {...props} />;
  if (rest === '/ai') return <AiPage {...props} />;
  if (rest === '/members') return <MembersPage {...props} />;
  if (rest === '/keys') return <KeysPage {...props} />;
  if (rest === '/settings') return <SettingsPage {...props} />;
  if (rest === '/api') return <ApiReferencePage {...props} />;
  return <p>Nothing lives at this address.</p>;
}
