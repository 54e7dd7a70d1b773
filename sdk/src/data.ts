// Documents of one collection (`/api/data/{collection}`): list with filters, sort, fields,
// populate and cursor paging (also as an async iterator), opt-in totals and counts; get, create,
// bulk create, update, trash, restore (one or many), aggregate.
import { filterQuery, type Filter, type SortKey } from './filters.js';
import type { Query, RequestOptions, Transport } from './transport.js';

export interface Pagination {
  page: number | null;
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
  total?: number;
}

export interface ListOptions<T> {
  filter?: Filter<T>;
  sort?: SortKey<T> | readonly SortKey<T>[];
  /** Only these fields (and `_id`). */
  fields?: readonly (keyof T & string)[];
  /** Ref fields to replace by the documents they name. */
  populate?: readonly (keyof T & string)[];
  /** 1 to 1000 (default 100). */
  limit?: number;
  page?: number;
  /** `pagination.nextCursor` of the previous page (with the same sort). */
  cursor?: string;
  /** Add `pagination.total` (costs a count). */
  total?: boolean;
  /** Include trashed documents. */
  includeDeleted?: boolean;
  signal?: AbortSignal;
}

export interface ListResult<T> {
  data: T[];
  pagination: Pagination;
}

export interface BulkResult {
  results: {
    id: string;
    status: 'trashed' | 'restored' | 'notFound' | 'forbidden' | 'conflict';
    message?: string;
  }[];
  counts: Record<string, number>;
}

const listQuery = <T>(options: ListOptions<T>): Query => ({
  ...filterQuery(options.filter),
  sort: typeof options.sort === 'string' ? options.sort : options.sort?.join(','),
  fields: options.fields?.join(','),
  populate: options.populate?.join(','),
  limit: options.limit,
  page: options.page,
  cursor: options.cursor,
  total: options.total || undefined,
  include_deleted: options.includeDeleted || undefined,
});

export class Collection<T = Record<string, unknown>, Create = Partial<T>, Update = Partial<T>> {
  private readonly path: string;

  constructor(
    private readonly http: Transport,
    readonly name: string,
  ) {
    this.path = `/api/data/${encodeURIComponent(name)}`;
  }

  async list(options: ListOptions<T> = {}): Promise<ListResult<T>> {
    const answer = await this.http.send<T[]>('GET', this.path, {
      query: listQuery(options),
      signal: options.signal,
    });
    return { data: answer.data, pagination: answer.pagination as Pagination };
  }

  /** Every matching document, page after page by cursor, as they are needed. */
  async *iterate(options: Omit<ListOptions<T>, 'page' | 'cursor' | 'total'> = {}): AsyncGenerator<T> {
    let cursor: string | undefined;
    do {
      const { data, pagination } = await this.list({ ...options, cursor });
      yield* data;
      cursor = pagination.hasMore && pagination.nextCursor ? pagination.nextCursor : undefined;
    } while (cursor);
  }

  async count(filter?: Filter<T>, options: { includeDeleted?: boolean } = {}): Promise<number> {
    const query = { ...listQuery({ filter, includeDeleted: options.includeDeleted }), count: true };
    return (await this.http.data<{ count: number }>('GET', this.path, { query })).count;
  }

  get(id: string, options: { fields?: readonly (keyof T & string)[]; populate?: readonly string[] } = {}) {
    return this.http.data<T>('GET', this.doc(id), {
      query: { fields: options.fields?.join(','), populate: options.populate?.join(',') },
    });
  }

  create(document: Create, options?: RequestOptions) {
    return this.http.data<T>('POST', this.path, { ...options, body: document });
  }

  /** 1 to 100 documents, all checked before any is written. */
  createMany(documents: readonly Create[]) {
    return this.http.data<T[]>('POST', `${this.path}/bulk`, { body: { documents } });
  }

  /** Sets the given fields (dot paths reach nested ones); the answer is the whole document. */
  update(id: string, changes: Update) {
    return this.http.data<T>('PATCH', this.doc(id), { body: changes });
  }

  /** Moves the document to the trash (restorable for 30 days). */
  trash(id: string) {
    return this.http.data<{ id: string; deletedAt: string }>('DELETE', this.doc(id));
  }

  restore(id: string) {
    return this.http.data<T>('POST', `${this.doc(id)}/restore`);
  }

  trashMany(ids: readonly string[]) {
    return this.http.data<BulkResult>('POST', `${this.path}/bulk/delete`, { body: { ids } });
  }

  restoreMany(ids: readonly string[]) {
    return this.http.data<BulkResult>('POST', `${this.path}/bulk/restore`, { body: { ids } });
  }

  /** A pipeline of the allowed stages (docs/data-api.md); at most 1000 result documents. */
  aggregate<R = Record<string, unknown>>(pipeline: readonly Record<string, unknown>[]) {
    return this.http.data<R[]>('POST', `${this.path}/aggregate`, { body: { pipeline } });
  }

  private doc(id: string) {
    return `${this.path}/${encodeURIComponent(id)}`;
  }
}
