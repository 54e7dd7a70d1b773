// The process-local project cache (src/services/project-cache.ts) over the in-memory cache: hits
// without loading, a project's change dropping its entries only, and the bound on entries.
import { expect } from 'chai';
import { createCache, type Cache } from '../../src/cache/index.js';
import { projectCache } from '../../src/services/project-cache.js';

describe('project cache', () => {
  let cache: Cache;
  beforeEach(async () => {
    cache = await createCache(undefined, `unit_${Date.now()}`);
  });
  afterEach(() => cache.close());

  /** A loader that counts its calls and answers `value` followed by the call number. */
  function counted(value: string) {
    const loader = async () => `${value}#${++loader.calls}`;
    loader.calls = 0;
    return loader;
  }

  it('answers hits without loading, and loads again only the changed project', async () => {
    const cached = projectCache(cache);
    const a = counted('a');
    const b = counted('b');
    expect(await cached.ofProject('pa', 'def:x', a)).to.equal('a#1');
    expect(await cached.ofProject('pb', 'def:x', b)).to.equal('b#1');
    for (let i = 0; i < 5; i++) {
      expect(await cached.ofProject('pa', 'def:x', a)).to.equal('a#1');
      expect(await cached.ofProject('pb', 'def:x', b)).to.equal('b#1');
    }
    await cached.changed('pa');
    expect(await cached.ofProject('pa', 'def:x', a)).to.equal('a#2');
    expect(await cached.ofProject('pb', 'def:x', b)).to.equal('b#1');
    expect([a.calls, b.calls]).to.deep.equal([2, 1]);
  });

  it("drops a key's entry when the project it resolved to changes", async () => {
    const cached = projectCache(cache);
    const project = { id: 'pk' };
    let loads = 0;
    const load = async () => {
      loads++;
      return project;
    };
    expect(await cached.find('key:secret:h', load, (p) => p.id)).to.equal(project);
    const afterMiss = loads; // a miss loads twice (before and after reading the version)
    expect(await cached.find('key:secret:h', load, (p) => p.id)).to.equal(project);
    expect(loads).to.equal(afterMiss);
    await cached.changed('other');
    await cached.find('key:secret:h', load, (p) => p.id);
    expect(loads).to.equal(afterMiss);
    await cached.changed('pk');
    await cached.find('key:secret:h', load, (p) => p.id);
    expect(loads).to.be.above(afterMiss);
  });

  it('keeps at most maxEntries entries, and answers right after dropping some', async () => {
    const cached = projectCache(cache, { maxEntries: 4 });
    const loaders = Array.from({ length: 6 }, (_, i) => counted(`p${i}`));
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 6; i++) {
        const value = await cached.ofProject(`p${i}`, 'def:x', loaders[i]!);
        expect(value.startsWith(`p${i}#`)).to.equal(true);
      }
    }
    // Six projects through four places: entries were dropped and loaded again.
    expect(loaders.reduce((sum, l) => sum + l.calls, 0)).to.be.above(6);
    // The last ones stored are still hits.
    const before = loaders[5]!.calls;
    await cached.ofProject('p5', 'def:x', loaders[5]!);
    expect(loaders[5]!.calls).to.equal(before);
  });
});
