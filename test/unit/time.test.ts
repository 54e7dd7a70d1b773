import { expect } from 'chai';
import { isoFormatter } from '../../src/lib/time.js';

describe('isoFormatter', () => {
  it('formats every time as Date#toISOString does, whatever second it formatted before', () => {
    const iso = isoFormatter();
    const day = Date.UTC(2026, 10, 24);
    const times = [
      day - 1,
      day,
      day + 9,
      day + 10,
      day + 99,
      day + 100,
      day + 999,
      day + 1000,
      day + 86_400_000 + 5,
      -1,
      -999,
      -1000,
      -62_198_755_200_001, // before year 0: six-digit signed years
      8.64e15,
    ];
    for (const t of [...times, ...[...times].reverse(), ...times]) {
      expect(iso(t), String(t)).to.equal(new Date(t).toISOString());
    }
  });

  it('throws on an invalid time as toISOString does', () => {
    const iso = isoFormatter();
    expect(() => iso(NaN)).to.throw(RangeError);
    expect(() => iso(8.64e15 + 1)).to.throw(RangeError);
  });
});
