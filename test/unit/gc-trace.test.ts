import { expect } from 'chai';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gcTrace } from '../../scripts/bench/gc-trace.js';

const scavenge = (allocated: number, promoted: number, pause: number, helpers: number) =>
  `[1:0x1]   100 ms: pause=${pause} mutator=50.0 gc=s reduce_memory=0 background.scavenge.parallel=${helpers} ` +
  `allocated=${allocated} promoted=${promoted} new_space_survived=0\n`;

describe('gcTrace (npm run bench -- --gc)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gc-trace-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sums the collections written since the last call, per request, full collections included', () => {
    const file = join(dir, 'api');
    writeFileSync(file, scavenge(999_999, 999_999, 9, 9) + '{"level":30,"msg":"request"}\n');
    const trace = gcTrace(file);
    trace.mark();
    appendFileSync(file, scavenge(1024 * 100, 1024 * 10, 2, 3) + '{"level":30,"msg":"request"}\n');
    appendFileSync(
      file,
      '[1:0x1]   200 ms: pause=4 mutator=30.0 gc=mc background.mark=10 background.sweep=1 allocated=0 promoted=10240\n',
    );
    const perRequest = trace.since(10)!;
    expect(perRequest.allocatedKb).to.equal(10);
    expect(perRequest.promotedKb).to.equal(2);
    expect(perRequest.pauseMicros).to.equal(600);
    expect(perRequest.helperMicros).to.equal(1400);
    expect(trace.since(10)).to.deep.equal({ allocatedKb: 0, promotedKb: 0, pauseMicros: 0, helperMicros: 0 });
  });

  it('keeps a line written in part until its end arrives', () => {
    const file = join(dir, 'thin');
    writeFileSync(file, '');
    const trace = gcTrace(file);
    const line = scavenge(2048, 1024, 1, 1);
    appendFileSync(file, line.slice(0, 40));
    expect(trace.since(1)!.allocatedKb).to.equal(0);
    appendFileSync(file, line.slice(40));
    expect(trace.since(1)).to.deep.equal({
      allocatedKb: 2,
      promotedKb: 1,
      pauseMicros: 1000,
      helperMicros: 1000,
    });
  });
});
