// `npm run bench`'s count of database commands per request (compare.ts): a thin server and an API
// of their own, each connected to the database through a counting proxy (commands.ts).
import { BSON } from 'mongodb';
import type { HttpRequest } from './load.js';
import { commandProxy, perRequest, sendRequests } from './commands.js';
import { commandsLine, type CommandCount } from './report.js';
import { freePort, start, startApi, stop, up } from './setup.js';

/**
 * The database commands per request of each server: a thin server and an API of their own, each
 * connected through a counting proxy (commands.ts), loaded with `requests` requests of each kind
 * after 200 of the same kind.
 */
export async function countCommands(options: {
  ops: { name: string; http: (i: number) => HttpRequest; expect: number }[];
  mongodbUri: string;
  platformDb: string;
  projectDb: string;
  headers: Record<string, string>;
  concurrency: number;
  requests: number;
}): Promise<CommandCount[]> {
  const { ops: counted, mongodbUri, platformDb, requests: COMMANDS, headers: secret } = options;
  if (COMMANDS === 0 || counted.length === 0) return [];
  const [thinProxy, apiProxy] = [await commandProxy(mongodbUri), await commandProxy(mongodbUri)];
  const port = await freePort();
  const countedThin = await start(
    'scripts/bench/thin-server.ts',
    [],
    {
      MONGODB_URI: thinProxy.uri,
      THIN_DB: options.projectDb,
      THIN_COLLECTION: 'items',
      THIN_PORT: String(port),
    },
    up(`http://127.0.0.1:${port}/items?price_gte=0&price_lt=1`),
  );
  const countedPort = await freePort();
  const countedApi = await startApi(platformDb, countedPort, [], { MONGODB_URI: apiProxy.uri });
  const results: CommandCount[] = [];
  const c = options.concurrency;
  for (const op of counted) {
    const send = async (base: string, headers: Record<string, string>, total: number) =>
      sendRequests(
        total,
        c,
        (i) => {
          const r = op.http(i);
          return { method: r.method, url: `${base}${r.path}`, body: r.body, headers };
        },
        op.expect,
      );
    await send(`http://127.0.0.1:${port}/items`, {}, 200);
    thinProxy.reset();
    const thinAnswered = await send(`http://127.0.0.1:${port}/items`, {}, COMMANDS);
    const thinCounts = perRequest(thinProxy.counts(), thinAnswered);
    const thinSamples = thinProxy.samples();
    await send(`http://127.0.0.1:${countedPort}/api/data/items`, secret, 200);
    apiProxy.reset();
    const apiAnswered = await send(`http://127.0.0.1:${countedPort}/api/data/items`, secret, COMMANDS);
    const apiCounts = perRequest(apiProxy.counts(), apiAnswered);
    // The request's own command of each server as sent, to compare byte for byte (COMMANDS.md).
    for (const [server, samples] of [
      ['thin', thinSamples],
      ['api', apiProxy.samples()],
    ] as const) {
      for (const [name, body] of samples)
        console.log(
          `${op.name}, ${server}, ${name} (${body.length} bytes): ${BSON.EJSON.stringify(BSON.deserialize(body))}`,
        );
    }
    const result = { op: op.name, requests: COMMANDS, thin: thinCounts, api: apiCounts };
    console.log(commandsLine(result));
    results.push(result);
  }
  await Promise.all([stop(countedThin), stop(countedApi)]);
  await Promise.all([thinProxy.close(), apiProxy.close()]);
  return results;
}
