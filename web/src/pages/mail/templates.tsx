// Mail templates: the system ones (read-only) and the project's own (Pro), each with a preview
// rendered by the API from variables typed as JSON, refreshed as they change and after a save.
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { errorText } from '../../api';
import {
  useMailActions,
  useMailPreview,
  useMailTemplates,
  type MailTemplate,
  type MailTemplateContent,
} from '../../data/mail';
import { ErrorBox, Field, FieldError, Notice, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { useSession } from '../../session';

interface Values {
  name: string;
  subject: string;
  text: string;
  html: string;
}

// The API's schema, which the form's resolver checks before anything is sent, asks for a text or
// an HTML part; the type of the body cannot see that check.
const contentOf = (v: Values) =>
  ({ subject: v.subject, text: v.text || null, html: v.html || null }) as MailTemplateContent;
const FIELDS = ['name', 'subject', 'text', 'html'];

function Preview({ projectId, name }: { projectId: string; name: string }) {
  const [typed, setTyped] = useState('{\n  "name": "Ada"\n}');
  const [variables, setVariables] = useState<Record<string, unknown>>({ name: 'Ada' });
  const [problem, setProblem] = useState('');
  // Parsed a moment after typing stops, so the preview follows without a call per key.
  useEffect(() => {
    const timer = setTimeout(() => {
      try {
        const value: unknown = JSON.parse(typed || '{}');
        if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error();
        setVariables(value as Record<string, unknown>);
        setProblem('');
      } catch {
        setProblem('Enter the variables as a JSON object, like { "name": "Ada" }.');
      }
    }, 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const preview = useMailPreview(projectId, name, variables);
  const { sendTest } = useMailActions(projectId);
  const { developer } = useSession();
  const p = preview.data;
  return (
    <section aria-labelledby="preview-heading" className="preview">
      <h3 id="preview-heading">Preview</h3>
      <div className="field">
        <label htmlFor="preview-variables">Variables (JSON)</label>
        <textarea
          id="preview-variables"
          className="mono"
          rows={3}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          aria-invalid={problem ? true : undefined}
        />
        <FieldError message={problem} />
      </div>
      <ErrorBox error={preview.error} />
      <div className="row">
        <button
          type="button"
          className="secondary"
          disabled={sendTest.isPending || !!problem}
          onClick={() => sendTest.mutate({ name, variables })}
        >
          Send a test to me
        </button>
        {sendTest.isPending && <Progress label="Sending…" />}
      </div>
      {sendTest.isSuccess && !sendTest.isPending && (
        <Notice>
          Sent to {developer?.email}: {sendTest.data.monthlyUsage} of {sendTest.data.monthlyLimit} mails this
          month.
        </Notice>
      )}
      <ErrorBox error={sendTest.error} />
      {p && (
        <div data-testid="mail-preview">
          <p>
            <strong>Subject:</strong> <span data-testid="preview-subject">{p.subject}</span>
          </p>
          {p.text && (
            <pre className="excerpt" data-testid="preview-text">
              {p.text}
            </pre>
          )}
          {p.html && (
            <>
              <iframe title="HTML part of the mail" sandbox="" srcDoc={p.html} className="mail-frame" />
              <small className="hint">
                Styles written inline in the HTML are left out here (the dashboard’s security policy); mail
                clients apply them.
              </small>
            </>
          )}
        </div>
      )}
    </section>
  );
}

function TemplateEditor({
  projectId,
  template,
  onSaved,
}: {
  projectId: string;
  template?: MailTemplate;
  onSaved: (name: string, words: string) => void;
}) {
  const { createTemplate, updateTemplate } = useMailActions(projectId);
  const form = useForm<Values>({
    values: {
      name: template?.name ?? '',
      subject: template?.subject ?? '',
      text: template?.text ?? '',
      html: template?.html ?? '',
    },
    resolver: template
      ? apiResolver<Values>('updateMailTemplate', contentOf)
      : apiResolver<Values>('createMailTemplate', (v) => ({ name: v.name.trim(), ...contentOf(v) })),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      if (template) {
        await updateTemplate.mutateAsync({ name: template.name, body: contentOf(values) });
        onSaved(template.name, `Saved the template ${template.name}.`);
      } else {
        const made = await createTemplate.mutateAsync({ name: values.name.trim(), ...contentOf(values) });
        onSaved(made.name, `Created the template ${made.name}.`);
      }
    } catch (err) {
      showFailure(form, err, FIELDS);
    }
  });
  const readOnly = template?.system;
  return (
    <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
      {!template && (
        <Field
          label="Template name"
          required
          hint="Lower-case letters, digits, _ and -."
          {...form.register('name')}
          error={errors.name?.message}
        />
      )}
      <Field
        label="Subject"
        readOnly={readOnly}
        {...form.register('subject')}
        error={errors.subject?.message}
      />
      <div className="field">
        <label htmlFor="template-text">Text part</label>
        <textarea id="template-text" rows={4} readOnly={readOnly} {...form.register('text')} />
        <FieldError message={errors.text?.message} />
      </div>
      <div className="field">
        <label htmlFor="template-html">HTML part</label>
        <textarea
          id="template-html"
          rows={4}
          className="mono"
          readOnly={readOnly}
          {...form.register('html')}
        />
        <FieldError message={errors.html?.message} />
      </div>
      <small className="hint">
        Variables are written {'{{name}}'}; at least one of the two parts is needed.
      </small>
      <FormMessage errors={errors} />
      {!readOnly && (
        <button type="submit" disabled={isSubmitting}>
          {template ? 'Save template' : 'Create template'}
        </button>
      )}
    </form>
  );
}

export function TemplatesSection({ projectId }: { projectId: string }) {
  const templates = useMailTemplates(projectId);
  const { deleteTemplate } = useMailActions(projectId);
  const [selected, setSelected] = useState<string>();
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const list = templates.data?.templates ?? [];
  const current = list.find((t) => t.name === selected);
  const creating = selected === '';

  return (
    <section className="card" aria-labelledby="templates-heading">
      <h2 id="templates-heading">Templates</h2>
      <ErrorBox error={templates.error} />
      {templates.isPending && <Progress label="Loading templates…" />}
      {notice &&
        (notice.error ? (
          <div className="error" role="alert">
            {notice.text}
          </div>
        ) : (
          <Notice>{notice.text}</Notice>
        ))}
      {templates.data && (
        <div className="row">
          <div className="field">
            <label htmlFor="template-pick">Template</label>
            <select
              id="template-pick"
              value={selected ?? ''}
              onChange={(e) => setSelected(e.target.value || undefined)}
            >
              <option value="">Choose a template…</option>
              {list.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                  {t.system ? ' (system)' : ''}
                </option>
              ))}
            </select>
          </div>
          {templates.data.customTemplatesAllowed ? (
            <button type="button" className="secondary" onClick={() => setSelected('')}>
              New template
            </button>
          ) : (
            <p className="muted">Your own templates need the Pro plan; the system ones are used meanwhile.</p>
          )}
        </div>
      )}
      {current?.system && <p className="muted">A system template: it cannot be changed.</p>}
      {(current || creating) && (
        <TemplateEditor
          key={current?.name ?? 'new'}
          projectId={projectId}
          template={current}
          onSaved={(name, text) => {
            setSelected(name);
            setNotice({ text });
          }}
        />
      )}
      {current && !current.system && (
        <Confirm
          title={`Delete the template ${current.name}?`}
          action="Delete template"
          onConfirm={() =>
            deleteTemplate.mutate(current.name, {
              onSuccess: () => {
                setSelected(undefined);
                setNotice({ text: `Deleted the template ${current.name}.` });
              },
              onError: (err) => setNotice({ text: errorText(err), error: true }),
            })
          }
          trigger={
            <button type="button" className="danger secondary">
              Delete template
            </button>
          }
        >
          <p>Sends that name this template fail afterwards. This cannot be undone.</p>
        </Confirm>
      )}
      {current && <Preview key={current.name} projectId={projectId} name={current.name} />}
    </section>
  );
}
