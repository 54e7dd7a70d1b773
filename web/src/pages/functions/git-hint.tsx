// Where a function's code is kept for good: the dashboard's draft lasts a browser tab, git lasts.
export function GitHint() {
  return (
    <p className="muted" data-testid="git-hint">
      To keep functions in git: <code>mongobaas pull</code> writes them (and their code files) into the
      project’s definition, <code>mongobaas functions deploy</code> applies them from it (docs/cli.md).
    </p>
  );
}
