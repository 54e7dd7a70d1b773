// The backup archive format alone (no servers): what is written reads back line for line, and a
// cut, altered or incomplete archive is refused with a 400 naming the problem.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { writeArchive, type PartSource } from '../../src/services/backups/archive.js';
import { readArchive, verifyArchive } from '../../src/services/backups/archive-reader.js';

async function* source(parts: Record<string, string[]>): AsyncGenerator<PartSource> {
  for (const [name, lines] of Object.entries(parts)) {
    yield {
      name,
      lines: (async function* () {
        for (const line of lines) yield { line, bsonBytes: line.length };
      })(),
    };
  }
}

async function pack(entries: [string, string][]): Promise<Buffer> {
  const p = tar.pack();
  for (const [name, text] of entries) p.entry({ name, size: Buffer.byteLength(text) }, text);
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of p.pipe(createGzip())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const refusal = async (bytes: Buffer, sha256?: string) => {
  try {
    await verifyArchive(Readable.from([bytes]), () => undefined, sha256);
  } catch (err) {
    expect(err).to.have.property('status', 400);
    return (err as Error).message;
  }
  throw new Error('the archive was accepted');
};

describe('backup archive format', () => {
  const parts = {
    'platform/project.jsonl': ['{"name":"p"}'],
    'data/posts.jsonl': Array.from(
      { length: 2000 },
      (_, i) => `{"_id":{"$oid":"${i.toString(16).padStart(24, '0')}"}}`,
    ),
    'data/empty.jsonl': [],
  };
  let bytes: Buffer;
  let sha256: string;

  before(async () => {
    const written = await writeArchive(
      {
        project: { id: 'a'.repeat(24), name: 'p' },
        createdAt: new Date(0).toISOString(),
        includesUsers: true,
      },
      source(parts),
    );
    bytes = await readFile(written.file);
    sha256 = written.sha256;
    expect(written.size).to.equal(bytes.length);
    expect(written.manifest.parts.map((p) => [p.name, p.count])).to.deep.equal([
      ['platform/project.jsonl', 1],
      ['data/posts.jsonl', 2000],
      ['data/empty.jsonl', 0],
    ]);
    await written.cleanup();
  });

  it('reads back every line of every part, in order', async () => {
    const read: Record<string, string[]> = {};
    await readArchive(
      Readable.from([bytes]),
      {
        manifest: (m) => {
          expect(m.formatVersion).to.equal(2);
        },
        async part(part, lines) {
          read[part.name] = [];
          for await (const line of lines) read[part.name]!.push(line);
        },
        async file() {
          throw new Error('no file part was written');
        },
      },
      sha256,
    );
    expect(read).to.deep.equal(parts);
  });

  it('refuses a cut archive, a wrong file checksum, a part that does not match, a missing or extra part', async () => {
    expect(await refusal(bytes.subarray(0, bytes.length - 40))).to.match(/gzip|cut short|refused/);
    expect(await refusal(bytes, 'f'.repeat(64))).to.match(/SHA-256 does not match/);
    const manifest = (partsList: object[]) =>
      JSON.stringify({ formatVersion: 1, project: { id: 'a'.repeat(24), name: 'p' }, parts: partsList });
    const line = '{"a":1}\n';
    const good = { name: 'data/a.jsonl', count: 1, size: line.length };
    const { createHash } = await import('node:crypto');
    const sha = createHash('sha256').update(line).digest('hex');
    expect(
      await refusal(
        await pack([
          ['manifest.json', manifest([{ ...good, sha256: 'x' }])],
          ['data/a.jsonl', line],
        ]),
      ),
    ).to.match(/part data\/a.jsonl does not match its checksum/);
    expect(await refusal(await pack([['manifest.json', manifest([{ ...good, sha256: sha }])]]))).to.match(
      /part data\/a.jsonl is missing/,
    );
    expect(
      await refusal(
        await pack([
          ['manifest.json', manifest([])],
          ['data/a.jsonl', line],
        ]),
      ),
    ).to.match(/unexpected entry data\/a.jsonl/);
    expect(await refusal(await pack([['data/a.jsonl', line]]))).to.match(
      /manifest.json is not its first entry/,
    );
    expect(
      await refusal(
        await pack([['manifest.json', manifest([{ ...good, name: '../etc/passwd', sha256: sha }])]]),
      ),
    ).to.match(/unknown part/);
    // Only the parts a backup writes: no other platform collection, no system collection.
    for (const name of ['platform/developers.jsonl', 'platform/sessions.jsonl', 'data/system.views.jsonl']) {
      const withPart = manifest([{ ...good, name, sha256: sha }]);
      expect(await refusal(await pack([['manifest.json', withPart]]))).to.equal(
        `The archive is refused: unknown part ${name}`,
      );
    }
    // An external database's collection may have any MongoDB name.
    const dotted = { ...good, name: 'data/my.events-2026.jsonl', sha256: sha };
    await verifyArchive(
      Readable.from([
        await pack([
          ['manifest.json', manifest([dotted])],
          ['data/my.events-2026.jsonl', line],
        ]),
      ]),
      () => undefined,
    );
    // Sanity: the same archive with the right checksum is accepted.
    await verifyArchive(
      Readable.from([
        await pack([
          ['manifest.json', manifest([{ ...good, sha256: sha }])],
          ['data/a.jsonl', line],
        ]),
      ]),
      () => undefined,
    );
  });
});
