// File paths of the storage services: the sanitized name and the strict parsing of paths given
// back by clients.
import { expect } from 'chai';
import { newFilePath, parseFilePath, sanitizeFilename } from '../../src/services/storage/paths.js';

const PROJECT = '65f1c2a4b7e8d90012345678';

describe('storage paths', () => {
  it('keeps safe names as they are', () => {
    expect(sanitizeFilename('avatar.png')).to.equal('avatar.png');
    expect(sanitizeFilename('My-File_v2.tar.gz')).to.equal('My-File_v2.tar.gz');
  });

  it('drops directories, traversal, control characters and unsafe characters', () => {
    expect(sanitizeFilename('../../etc/passwd')).to.equal('passwd');
    expect(sanitizeFilename('C:\\Users\\me\\..\\x.exe')).to.equal('x.exe');
    expect(sanitizeFilename('..')).to.equal('file');
    expect(sanitizeFilename('...')).to.equal('file');
    expect(sanitizeFilename('.htaccess')).to.equal('htaccess');
    expect(sanitizeFilename('a\u0000b\r\nc.txt')).to.equal('a_b_c.txt');
    expect(sanitizeFilename('evil\u202egnp.exe')).to.equal('evil_gnp.exe');
    expect(sanitizeFilename('a..b.txt')).to.equal('a.b.txt');
    expect(sanitizeFilename('%2e%2e%2f')).to.equal('2e_2e_2f');
    expect(sanitizeFilename('<script>.html')).to.equal('script.html');
    expect(sanitizeFilename('')).to.equal('file');
    expect(sanitizeFilename('Ünïcødé naïve.txt')).to.equal('Unic_de_naive.txt');
  });

  it('bounds the length to 100 characters and keeps the extension', () => {
    const name = sanitizeFilename(`${'a'.repeat(300)}.jpeg`);
    expect(name).to.have.length(100);
    expect(name.endsWith('.jpeg')).to.equal(true);
    const noExt = sanitizeFilename('b'.repeat(300));
    expect(noExt).to.equal('b'.repeat(100));
    // An "extension" too long to be one is part of the name.
    expect(sanitizeFilename(`x.${'y'.repeat(40)}`)).to.equal(`x.${'y'.repeat(40)}`);
  });

  it('builds `<project_id>/<uuid>_<name>` and parses only that shape back', () => {
    const path = newFilePath(PROJECT, '../photo.png');
    expect(path).to.match(new RegExp(`^${PROJECT}/[0-9a-f-]{36}_photo\\.png$`));
    expect(parseFilePath(path)).to.deep.equal({ projectId: PROJECT, name: path.split('/')[1] });
    for (const bad of [
      `../${path}`,
      `/${path}`,
      `${PROJECT}/../${path}`,
      `${path}/x`,
      `${PROJECT}/photo.png`,
      `${PROJECT}/00000000-0000-0000-0000-000000000000_..`,
      `${PROJECT}/00000000-0000-0000-0000-000000000000_a/b`,
      `${PROJECT}/00000000-0000-0000-0000-000000000000_a%2f..`,
      `${PROJECT.toUpperCase()}/00000000-0000-0000-0000-000000000000_a`,
      `${PROJECT}/00000000-0000-0000-0000-000000000000_${'a'.repeat(101)}`,
      '',
    ]) {
      expect(parseFilePath(bad), bad).to.equal(undefined);
    }
  });
});
