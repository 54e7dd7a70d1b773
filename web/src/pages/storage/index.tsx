// Storage settings of a project (admins): where files are kept, whether end users may upload,
// and the project's own S3-compatible bucket (Pro), checked with the API's schema before it is
// sent and verified by the API before it is used.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { errorText } from '../../api';
import { useStorageActions, useStorageSettings, type BucketInput } from '../../data/storage';
import { ErrorBox, Field, Notice, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import type { ProjectPageProps } from '../project-shell';
import { PlanNeeded } from '../../components/plan-needed';

interface Values {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  publicUrlBase: string;
  forcePathStyle: boolean;
}

const bodyOf = (v: Values): BucketInput => ({
  endpoint: v.endpoint.trim(),
  region: v.region.trim(),
  bucket: v.bucket.trim(),
  accessKeyId: v.accessKeyId.trim(),
  secretAccessKey: v.secretAccessKey,
  publicUrlBase: v.publicUrlBase.trim() || null,
  forcePathStyle: v.forcePathStyle,
});
const FIELDS = ['endpoint', 'region', 'bucket', 'accessKeyId', 'secretAccessKey', 'publicUrlBase'];

export function StoragePage({ project }: ProjectPageProps) {
  const settings = useStorageSettings(project.id);
  const { setUploads, connect, disconnect } = useStorageActions(project.id);
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const form = useForm<Values>({
    defaultValues: {
      endpoint: '',
      region: '',
      bucket: '',
      accessKeyId: '',
      secretAccessKey: '',
      publicUrlBase: '',
      forcePathStyle: true,
    },
    resolver: apiResolver<Values>('setExternalStorage', bodyOf),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    try {
      await connect.mutateAsync(bodyOf(values));
      form.reset();
      setNotice({ text: 'Your bucket is connected and verified: new uploads go there.' });
    } catch (err) {
      showFailure(form, err, FIELDS);
    }
  });
  const s = settings.data;
  const field = (name: keyof Values & string, label: string, extra: Record<string, unknown> = {}) => (
    <Field label={label} {...extra} {...form.register(name)} error={errors[name]?.message} />
  );

  return (
    <>
      <h1>Storage</h1>
      <ErrorBox error={settings.error} />
      {settings.isPending && <Progress label="Loading storage settings…" />}
      {notice &&
        (notice.error ? (
          <div className="error" role="alert">
            {notice.text}
          </div>
        ) : (
          <Notice>{notice.text}</Notice>
        ))}
      {s && (
        <>
          <section className="card" aria-labelledby="storage-where">
            <h2 id="storage-where">Where files are kept</h2>
            <p data-testid="storage-state">
              {s.provider === 'external' && s.external
                ? `In your bucket ${s.external.bucket} at ${s.external.endpoint}.`
                : `In the built-in storage${s.internal.publicUrls ? ', with public URLs' : ''}.`}
            </p>
            <label className="check">
              <input
                type="checkbox"
                checked={s.endUserUploads}
                disabled={setUploads.isPending}
                onChange={(e) =>
                  setUploads.mutate(e.target.checked, {
                    onSuccess: (now) =>
                      setNotice({
                        text: now.endUserUploads
                          ? 'End users may upload files.'
                          : 'End users may no longer upload files.',
                      }),
                    onError: (err) => setNotice({ text: errorText(err), error: true }),
                  })
                }
              />
              End users may upload files (publishable key and access token)
            </label>
          </section>
          <section className="card" aria-labelledby="storage-own">
            <h2 id="storage-own">Your own S3-compatible bucket</h2>
            {s.provider === 'external' ? (
              <Confirm
                title="Use the built-in storage again?"
                action="Use the built-in storage"
                onConfirm={() =>
                  disconnect.mutate(undefined, {
                    onSuccess: () => setNotice({ text: 'New uploads go to the built-in storage again.' }),
                    onError: (err) => setNotice({ text: errorText(err), error: true }),
                  })
                }
                trigger={
                  <button type="button" className="secondary">
                    Use the built-in storage again
                  </button>
                }
              >
                <p>Files already in your bucket stay there; new uploads go to the built-in storage.</p>
              </Confirm>
            ) : !s.externalStorageAllowed ? (
              <PlanNeeded what="Your own bucket" />
            ) : (
              <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
                {field('endpoint', 'Endpoint', {
                  type: 'url',
                  placeholder: 'https://s3.eu-central-1.amazonaws.com',
                })}
                {field('region', 'Region', { placeholder: 'eu-central-1' })}
                {field('bucket', 'Bucket', { placeholder: 'my-app-uploads' })}
                {field('accessKeyId', 'Access key id')}
                {field('secretAccessKey', 'Secret access key', { type: 'password', autoComplete: 'off' })}
                {field('publicUrlBase', 'Public URL base (optional)', {
                  type: 'url',
                  placeholder: 'https://cdn.example.com',
                })}
                <label className="check">
                  <input type="checkbox" {...form.register('forcePathStyle')} />
                  Path-style URLs (most S3-compatible servers other than AWS)
                </label>
                <FormMessage errors={errors} />
                {isSubmitting && <Progress label="Checking the bucket…" />}
                <button type="submit" disabled={isSubmitting}>
                  Verify and connect
                </button>
              </form>
            )}
          </section>
        </>
      )}
    </>
  );
}
