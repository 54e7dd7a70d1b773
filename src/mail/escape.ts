// HTML escaping of values put into the HTML part of a mail.

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * A plain mail of paragraphs as its text and HTML parts: blank lines between them in the text;
 * in the HTML each is a paragraph, escaped, and the one that is `link` a clickable link.
 */
export function paragraphMail(paragraphs: readonly string[], link: string): { text: string; html: string } {
  return {
    text: paragraphs.join('\n\n') + '\n',
    html: paragraphs
      .map((p) =>
        p === link ? `<p><a href="${escapeHtml(p)}">${escapeHtml(p)}</a></p>` : `<p>${escapeHtml(p)}</p>`,
      )
      .join(''),
  };
}
