// The AI Query Builder: a collection and a question in words become a query the API checked
// against the collection's definition (not run), shown as the request to make.
import { useForm } from 'react-hook-form';
import { useAiActions } from '../../data/ai';
import { CopyButton, Field, FieldError, Progress } from '../../components/ui';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';

interface Values {
  collection: string;
  prompt: string;
}

const bodyOf = (v: Values) => ({ collection: v.collection, prompt: v.prompt.trim() });

export function QueryBuilder({ projectId, collections }: { projectId: string; collections: string[] }) {
  const { buildQuery } = useAiActions(projectId);
  const form = useForm<Values>({
    defaultValues: { collection: collections[0] ?? '', prompt: '' },
    resolver: apiResolver<Values>('buildAiQuery', bodyOf),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    buildQuery.reset();
    try {
      await buildQuery.mutateAsync(bodyOf(values));
    } catch (err) {
      showFailure(form, err, ['collection', 'prompt']);
    }
  });
  const result = buildQuery.data;

  return (
    <section className="card" aria-labelledby="qb-heading">
      <h2 id="qb-heading">Query Builder</h2>
      <p className="muted">
        Ask in words; the answer is a query checked against the collection’s fields, not run.
      </p>
      {collections.length === 0 ? (
        <p>Create a collection first: the Query Builder writes queries against one.</p>
      ) : (
        <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
          <div className="field">
            <label htmlFor="qb-collection">Collection</label>
            <select id="qb-collection" {...form.register('collection')}>
              {collections.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
            <FieldError message={errors.collection?.message} />
          </div>
          <Field
            label="Question"
            required
            placeholder="the 20 most expensive paid orders of this year"
            {...form.register('prompt')}
            error={errors.prompt?.message}
          />
          <FormMessage errors={errors} />
          {isSubmitting && <Progress label="Asking the model…" />}
          <button type="submit" disabled={isSubmitting}>
            Build query
          </button>
        </form>
      )}
      {result && (
        <div className="ai-result" data-testid="ai-query">
          <p>
            <strong>Request:</strong> <code>{result.query.request}</code>{' '}
            <CopyButton text={result.query.request} label="Copy request" />
          </p>
          {result.query.explanation && <p>{result.query.explanation}</p>}
          {result.query.pipeline && (
            <pre className="excerpt">{JSON.stringify(result.query.pipeline, null, 2)}</pre>
          )}
          <p className="muted">Answered on the {result.keySource} key.</p>
        </div>
      )}
    </section>
  );
}
