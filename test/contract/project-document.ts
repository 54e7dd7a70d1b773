// The project document of the contract run: a project with the collections of
// project-fixture.cjs, made over the dashboard API once the other runs are done (so that the
// operator of the installation is still the first account, as fixtures.cjs expects), and its
// generated OpenAPI document, fetched with its key and written to a file for Prism and Dredd.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { COLLECTIONS } = require('./project-fixture.cjs') as { COLLECTIONS: object[] };
// Sign-up confirms the address by mail: the link is read from the test stack's SMTP sink.
const { signUpConfirmed } = require('../../scripts/mailed-link.cjs') as {
  signUpConfirmed: (
    post: (path: string, body: unknown) => Promise<unknown>,
    dir: string | undefined,
    email: string,
    password: string,
  ) => Promise<unknown>;
};

async function call(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> },
) {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} -> ${res.status} ${await res.text()}`);
  return { json: (await res.json()) as any, cookie: res.headers.get('set-cookie')?.split(';')[0] };
}

export async function projectDocument(dashboardUrl: string, publicUrl: string, dir: string) {
  const signup = (await signUpConfirmed(
    (urlPath: string, body: unknown) => call(`${dashboardUrl}${urlPath}`, { method: 'POST', body }),
    process.env.SMTP_SINK_DIR,
    `project-doc-${Date.now()}@contract.test`,
    'correct horse battery staple',
  )) as { cookie?: string };
  const cookie = { cookie: signup.cookie! };
  const project = await call(`${dashboardUrl}/api/projects`, {
    method: 'POST',
    body: { name: 'Contract project document' },
    headers: cookie,
  });
  const { id } = project.json.data.project;
  for (const collection of COLLECTIONS) {
    await call(`${dashboardUrl}/api/projects/${id}/collections`, {
      method: 'POST',
      body: collection,
      headers: cookie,
    });
  }
  const secretKey: string = project.json.data.keys.secret;
  const doc = await call(`${publicUrl}/api/openapi.json`, { headers: { 'x-api-key': secretKey } });
  const file = path.join(dir, 'project.openapi.json');
  writeFileSync(file, JSON.stringify(doc.json, null, 2));
  return { file, secretKey };
}
