// The system mail templates (every plan): the email-verification code and the password-reset code
// that end-user auth sends, also usable by name through the public mail API. They use the template
// syntax of src/mail/render.ts, so their values are escaped in the HTML part. The project's name
// is chosen by whoever creates a project, so it stays out of the subject, and the body gets it
// reduced to letters, digits and a few marks, 40 characters at most (no links, no domain names).
import { renderTemplate, type MailTemplateSource } from './render.js';

export { escapeHtml } from './escape.js';

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export type CodePurpose = 'verify-email' | 'password-reset';

export interface SystemTemplate extends MailTemplateSource {
  /** The name and id of the template in the mail API. */
  name: string;
  text: string;
  html: string;
  description: string;
}

const IGNORE = 'If you did not ask for it, ignore this message.';

function codeTemplate(name: string, subject: string, intro: string, description: string): SystemTemplate {
  return {
    name,
    description,
    subject,
    text:
      `${intro} for {{appName}}.\n\nYour code is {{code}}\n\n` +
      `It is valid for {{validMinutes}} minutes. ${IGNORE}\n`,
    html:
      `<p>${intro} for {{appName}}.</p>` +
      `<p style="font-size:24px;letter-spacing:4px"><strong>{{code}}</strong></p>` +
      `<p>It is valid for {{validMinutes}} minutes. ${IGNORE}</p>`,
  };
}

export const SYSTEM_TEMPLATES: Readonly<Record<string, SystemTemplate>> = Object.freeze({
  'email-verification': codeTemplate(
    'email-verification',
    'Your verification code',
    'Use this code to verify your email address',
    'A verification code. Variables: code, appName, validMinutes.',
  ),
  'password-reset': codeTemplate(
    'password-reset',
    'Your password reset code',
    'Use this code to reset your password',
    'A password reset code. Variables: code, appName, validMinutes.',
  ),
});

const BY_PURPOSE: Record<CodePurpose, SystemTemplate> = {
  'verify-email': SYSTEM_TEMPLATES['email-verification']!,
  'password-reset': SYSTEM_TEMPLATES['password-reset']!,
};

const MAX_APP_NAME = 40;

/**
 * A project name as the code mails show it: letters, digits, spaces and `' & - _` only (a dot, a
 * slash or `@` would let it pass for a link or an address), blanks collapsed, 40 characters at
 * most; "your app" when nothing is left.
 */
export function mailAppName(name: string): string {
  const plain = name
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}\p{M} '&_-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...plain];
  if (chars.length === 0) return 'your app';
  return chars.length > MAX_APP_NAME
    ? `${chars
        .slice(0, MAX_APP_NAME - 1)
        .join('')
        .trimEnd()}…`
    : plain;
}

export function codeMail(
  purpose: CodePurpose,
  code: string,
  appName: string,
  validMinutes: number,
): RenderedMail {
  const { subject, text, html } = renderTemplate(BY_PURPOSE[purpose], {
    code,
    appName: mailAppName(appName),
    validMinutes,
  });
  return { subject, text: text!, html: html! };
}
