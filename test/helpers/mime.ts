// Reads the text and HTML parts of a raw message as the SMTP sink received it (multipart or
// single part; 7bit, quoted-printable or base64), so tests can assert on what a recipient sees.

function splitHead(block: string): { headers: Record<string, string>; body: string } {
  const normalized = block.replace(/\r\n/g, '\n');
  const cut = normalized.indexOf('\n\n');
  const head = cut < 0 ? normalized : normalized.slice(0, cut);
  const body = cut < 0 ? '' : normalized.slice(cut + 2);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function decode(body: string, encoding = '7bit'): string {
  const kind = encoding.toLowerCase();
  if (kind === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (kind === 'quoted-printable') {
    const bytes = body
      .replace(/=\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

export interface MimeParts {
  headers: Record<string, string>;
  text?: string;
  html?: string;
}

export function mimeParts(raw: string): MimeParts {
  const top = splitHead(raw);
  const out: MimeParts = { headers: top.headers };
  const visit = (part: { headers: Record<string, string>; body: string }) => {
    const type = part.headers['content-type'] ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (type.startsWith('multipart/') && boundary) {
      const chunks = part.body.split(`--${boundary}`).slice(1);
      for (const chunk of chunks) {
        if (chunk.startsWith('--')) break;
        visit(splitHead(chunk.replace(/^\n/, '')));
      }
      return;
    }
    const content = decode(part.body, part.headers['content-transfer-encoding']).replace(/\n$/, '');
    if (type.startsWith('text/html')) out.html = content;
    else if (type.startsWith('text/plain')) out.text = content;
  };
  visit(top);
  return out;
}

/** A header value with its RFC 2047 encoded words decoded (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`). */
export function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decode(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}
