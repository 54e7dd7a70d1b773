// Helpers of the backup suites: a whole project database as canonical Extended JSON (to compare
// types as well as values), and a hand-made archive (to try what the server must refuse).
import tar from 'tar-stream';
import { createGzip } from 'node:zlib';
import { BSON, type Db } from 'mongodb';

/**
 * Every collection's documents by `_id`, in canonical Extended JSON (each value carries its type:
 * `$oid`, `$date`, `$numberDecimal`, `$numberLong`, `$binary`...), parsed so that a deep equal
 * compares types and values but not the order of fields (the server may put `_id` first).
 */
export async function dumpDatabase(db: Db): Promise<Record<string, unknown[]>> {
  const names = (await db.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .filter((n) => !n.startsWith('system.'))
    .sort();
  const out: Record<string, unknown[]> = {};
  for (const name of names) {
    const docs = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
    out[name] = docs.map((d) => JSON.parse(BSON.EJSON.stringify(d, { relaxed: false })) as unknown);
  }
  return out;
}

/** A tar.gz holding only this manifest. */
export async function packArchive(manifest: object): Promise<Buffer> {
  const pack = tar.pack();
  const text = Buffer.from(JSON.stringify(manifest));
  pack.entry({ name: 'manifest.json', size: text.length }, text);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack.pipe(createGzip())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
