// The warning of the project overview and Settings while pages on origins the project does not
// grant sent credentials (`project.credentialsRefused`, noted by the public API's CORS): the browser
// refused those pages every answer and said only "blocked by CORS". A button adds the origin to
// the project's allowed origins, through the same update as the Settings form, once confirmed: the
// Origin header is anyone's to send, and a listed origin gets the users' credentials and
// social-login redirects, so the developer is asked whether it is their app.
import { useUpdateProject } from '../../data/projects';
import { ErrorBox } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import type { Project } from '../../api';

export function CredentialsRefused({
  project,
  onAdded,
}: {
  project: Project;
  /** Told of the project as saved, so a form showing the allowed origins can follow. */
  onAdded?: (project: Project) => void;
}) {
  const update = useUpdateProject(project.id);
  const refused = project.credentialsRefused ?? [];
  if (refused.length === 0) return null;
  const admin = project.role === 'admin';
  const add = (origin: string) =>
    update.mutate(
      { settings: { allowedOrigins: [...project.settings.allowedOrigins, origin] } },
      { onSuccess: (saved) => onAdded?.(saved) },
    );
  return (
    <section
      className="card warning"
      aria-labelledby="credentials-refused-heading"
      data-testid="credentials-refused"
    >
      <h2 id="credentials-refused-heading">Browsers refused your app</h2>
      <ul className="plain">
        {refused.map(({ origin, at }) => (
          <li key={origin}>
            <p>
              A page on <strong>{origin}</strong> sent credentials; add it to Allowed origins.{' '}
              <span className="muted">Last seen {new Date(at).toLocaleString()}.</span>
            </p>
            {admin ? (
              <Confirm
                title={`Add ${origin} to Allowed origins?`}
                action="Add origin"
                safe
                onConfirm={() => add(origin)}
                trigger={
                  <button
                    type="button"
                    disabled={update.isPending}
                    aria-label={`Add to Allowed origins: ${origin}`}
                  >
                    Add to Allowed origins
                  </button>
                }
              >
                <p>
                  Only if it is your app: pages on {origin} will get your end users’ credentials and may
                  receive social-login redirects. Any client can claim an origin, so one you do not recognise
                  is not a reason to add it.
                </p>
              </Confirm>
            ) : (
              <p className="muted">A project admin can add it in Settings.</p>
            )}
          </li>
        ))}
      </ul>
      <p className="muted">
        Its calls (a browser SDK sends <code>credentials: &apos;include&apos;</code>) were answered, but the
        browser let the page read none of them: only listed origins get credentials.
      </p>
      <ErrorBox error={update.error} />
    </section>
  );
}
