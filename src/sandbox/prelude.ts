// The JavaScript evaluated in an interpreter the first time its code reads `ctx` or `console`: it
// builds `ctx.db`, `ctx.fetch`, `console` and the maker of `ctx.env` over two host functions and
// returns them frozen. It runs inside QuickJS, so it can do nothing the tenant's own code could
// not; it only makes the API pleasant.

export const PRELUDE_FILE = 'sandbox:prelude';

export const PRELUDE = `(function (host, log, logCap) {
  'use strict';
  const text = (v) => {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return String(v.stack ? v + '\\n' + v.stack : v);
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
  };
  const writer = (level) => (...args) => {
    const line = args.map(text).join(' ');
    log(level, line.length > logCap ? line.slice(0, logCap) : line);
  };
  const console = Object.freeze({
    log: writer('log'), info: writer('info'), warn: writer('warn'), error: writer('error'),
    debug: writer('log'),
  });
  const stringify = JSON.stringify, parse = JSON.parse;
  const call = (kind, arg) => host(kind, stringify(arg)).then((answer) => parse(answer));
  const db = Object.freeze({
    list: (collection, query) => call('db', { action: 'list', collection, query }),
    get: (collection, id) => call('db', { action: 'get', collection, id }),
    create: (collection, body) => call('db', { action: 'create', collection, body }),
    update: (collection, id, body) => call('db', { action: 'update', collection, id, body }),
    delete: (collection, id) => call('db', { action: 'delete', collection, id }),
    count: (collection, query) => call('db', { action: 'count', collection, query }),
    aggregate: (collection, pipeline) => call('db', { action: 'aggregate', collection, pipeline }),
  });
  const fetch = (url, init) => {
    const options = init || {};
    return call('fetch', { url: String(url), method: options.method, headers: options.headers, body: options.body })
      .then((res) => Object.freeze({
        status: res.status, headers: res.headers, body: res.body, ok: res.status >= 200 && res.status < 300,
        text: () => res.body, json: () => parse(res.body),
      }));
  };
  const env = (text) => Object.freeze(parse(text));
  return Object.freeze({ db, fetch, console, env });
})`;
