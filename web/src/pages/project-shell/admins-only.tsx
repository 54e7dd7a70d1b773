// What a member meets on an admin-only page opened by its address (the menu does not list it): the
// page's heading and what only admins can do there, and no control that would fail for them.
import { Link } from '../../components/ui';

/** Per admin-only section: its heading, and what only admins can do there. */
export const ADMINS_ONLY: Record<string, { title: string; words: string }> = {
  '/webhooks': {
    title: 'Webhooks',
    words: 'Only admins can see, add, test or delete this project’s webhooks.',
  },
  '/mail': { title: 'Mail', words: 'Only admins can change this project’s mail server and templates.' },
  '/storage': { title: 'Storage', words: 'Only admins can change where this project’s files are stored.' },
  '/database': { title: 'Database', words: 'Only admins can connect this project to a database of its own.' },
  '/backups': {
    title: 'Backups',
    words: 'Only admins can make, download or restore this project’s backups.',
  },
  '/keys': { title: 'API keys', words: 'Only admins can see or rotate this project’s API keys.' },
  '/settings': { title: 'Settings', words: 'Only admins can change this project’s settings.' },
};

export function AdminsOnlyPage({ section, projectId }: { section: string; projectId: string }) {
  const { title, words } = ADMINS_ONLY[section]!;
  return (
    <>
      <h1>{title}</h1>
      <p data-testid="member-note">
        {words} As a member, ask an admin of the project (the{' '}
        <Link to={`/projects/${projectId}/members`}>Members</Link> page names them).
      </p>
    </>
  );
}
