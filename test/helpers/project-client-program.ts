// The program the project document test type-checks against a client generated from the
// document of its fixture project (test/api/project-api-document.test.ts) and then runs against
// the service. Its @ts-expect-error lines are the proof that the types are tight.
/** A small app using the generated client: it must type-check and run against the service. */
export const PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './project-api.js';

type Post = components['schemas']['posts'];
type PostInput = components['schemas']['posts.Create'];
type Signup = components['schemas']['users.Signup'];
const baseUrl = process.env.BASE_URL!;
const server = createClient<paths>({ baseUrl, headers: { 'x-api-key': process.env.SECRET_KEY! } });
const browser = createClient<paths>({ baseUrl, headers: { 'x-api-key': process.env.PUBLISHABLE_KEY! } });

async function main() {
  const signup = await browser.POST('/api/userAuth/signup', { body: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada', phone: '+1 555 0100' } });
  if (!signup.data) throw new Error('signup: ' + signup.response.status);
  const user = signup.data.data.user;
  const bearer = { authorization: 'Bearer ' + signup.data.data.accessToken };

  const category = await server.POST('/api/data/categories', { body: { name: 'News', color: 'red' } });
  if (!category.data) throw new Error('category: ' + category.response.status);
  const created = await server.POST('/api/data/posts', { body: { title: 'Hello', slug: 'hello', publishedAt: Date.now(), tags: ['a'], meta: { lang: 'en' }, author: user._id, category: category.data.data._id } });
  if (!created.data) throw new Error('create: ' + JSON.stringify(created.error));
  const post: Post = created.data.data;
  const views: number | null = post.views;

  const list = await browser.GET('/api/data/posts', { params: { query: { views_gte: 0, title: 'Hello', sort: '-createdAt', limit: 10 } } });
  if (!list.data || !('pagination' in list.data)) throw new Error('list');
  const listTitles: string[] = list.data.data.map((p) => p.title);
  const counted = await browser.GET('/api/data/posts', { params: { query: { count: true } } });
  const count = counted.data && !Array.isArray(counted.data.data) ? counted.data.data.count : -1;

  const patched = await server.PATCH('/api/data/posts/{id}', { params: { path: { id: post._id } }, body: { 'meta.words': 3 } });
  const refused = await browser.POST('/api/data/posts', { body: { title: 'Not with this key' } });

  const note = await browser.POST('/api/data/notes', { body: { text: 'mine' }, headers: bearer });
  const notes = await browser.GET('/api/data/notes', { headers: bearer });
  const me = await browser.GET('/api/userAuth/me', { headers: bearer });
  const populated = await browser.GET('/api/data/posts/{id}', { params: { path: { id: post._id }, query: { populate: 'author' } } });
  const author = (populated.data?.data as components['schemas']['posts.Populated'] | undefined)?.author;

  console.log(JSON.stringify({
    signupStatus: signup.response.status,
    userId: user._id,
    createStatus: created.response.status,
    title: post.title,
    views,
    listTitles,
    count,
    patchedWords: patched.data?.data.meta?.words,
    publishableCreateStatus: refused.response.status,
    publishableCreateCode: refused.error?.code,
    noteStatus: note.response.status,
    noteOwner: note.data?.data.userId,
    ownNotes: notes.data && 'pagination' in notes.data ? notes.data.data.length : -1,
    mePhone: me.data?.data.phone,
    populatedAuthorHasPhone: author ? 'phone' in author : null,
  }));
}

/** Never called: each marked line must be a compile error, or tsc reports an unused marker. */
export function wrongUses() {
  // openapi-fetch infers the body generically, so TypeScript's excess-property check needs the
  // body's type named (\`satisfies\`); wrong types and missing fields are caught either way.
  // @ts-expect-error titel is not a field of posts (schema collections are closed)
  void server.POST('/api/data/posts', { body: { title: 'x', titel: 'x' } satisfies PostInput });
  // @ts-expect-error views is a Number
  void server.POST('/api/data/posts', { body: { title: 'x', views: 'many' } });
  // @ts-expect-error title is required
  void server.POST('/api/data/posts', { body: { views: 1 } });
  // @ts-expect-error the title of a read document is a string
  const n: number = ({} as Post).title;
  // @ts-expect-error the views_gte filter takes a number
  void server.GET('/api/data/posts', { params: { query: { views_gte: 'ten' } } });
  // @ts-expect-error no collection postz
  void server.GET('/api/data/postz');
  // @ts-expect-error role is protected: end users cannot send it at sign-up
  void browser.POST('/api/userAuth/signup', { body: { email: 'a@example.com', password: 'long enough', role: 'admin' } satisfies Signup });
  // @ts-expect-error the password never comes back
  void ({} as components['schemas']['users']).password;
  return n;
}

await main();
`;
