// Mail template rendering, the one syntax of system and custom templates: `{{name}}` is replaced by
// the variable, HTML-escaped in the HTML part and as is in the text part and the subject;
// `{{{name}}}` is never escaped; `a.b.c` reads nested values; a missing variable renders empty.
// No logic, loops or partials: a template cannot run code or read anything but its variables.
import { escapeHtml } from './escape.js';

export interface MailTemplateSource {
  subject: string;
  text?: string | null;
  html?: string | null;
}

export interface RenderedParts {
  subject: string;
  text: string | undefined;
  html: string | undefined;
}

export type Variables = Record<string, unknown>;

const TAG = /\{\{\{\s*([\w.-]+)\s*\}\}\}|\{\{\s*([\w.-]+)\s*\}\}/g;
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

/** The value at a dot path of the variables, as text; empty when missing. */
function lookup(variables: Variables, path: string): string {
  let value: unknown = variables;
  for (const key of path.split('.')) {
    if (FORBIDDEN.has(key) || value === null || typeof value !== 'object') return '';
    if (!Object.prototype.hasOwnProperty.call(value, key)) return '';
    value = (value as Record<string, unknown>)[key];
  }
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function renderString(template: string, variables: Variables, html: boolean): string {
  return template.replace(TAG, (_match, raw: string | undefined, escaped: string | undefined) => {
    if (raw !== undefined) return lookup(variables, raw);
    const value = lookup(variables, escaped!);
    return html ? escapeHtml(value) : value;
  });
}

export function renderTemplate(source: MailTemplateSource, variables: Variables): RenderedParts {
  return {
    // A subject is one header line: line breaks from variables become spaces.
    subject: renderString(source.subject, variables, false).replace(/[\r\n]+/g, ' '),
    text: source.text ? renderString(source.text, variables, false) : undefined,
    html: source.html ? renderString(source.html, variables, true) : undefined,
  };
}
