// The system mail templates of end-user auth (every plan): the verification code and the
// password-reset code. Values are escaped in the HTML part.

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export type CodePurpose = 'verify-email' | 'password-reset';

const WORDING: Record<CodePurpose, { subject: string; intro: string }> = {
  'verify-email': {
    subject: 'Your verification code',
    intro: 'Use this code to verify your email address',
  },
  'password-reset': {
    subject: 'Your password reset code',
    intro: 'Use this code to reset your password',
  },
};

export function codeMail(
  purpose: CodePurpose,
  code: string,
  appName: string,
  validMinutes: number,
): RenderedMail {
  const { subject, intro } = WORDING[purpose];
  const ignore = 'If you did not ask for it, ignore this message.';
  const text =
    `${intro} for ${appName}.\n\nYour code is ${code}\n\n` +
    `It is valid for ${validMinutes} minutes. ${ignore}\n`;
  const html =
    `<p>${escapeHtml(intro)} for ${escapeHtml(appName)}.</p>` +
    `<p style="font-size:24px;letter-spacing:4px"><strong>${escapeHtml(code)}</strong></p>` +
    `<p>It is valid for ${validMinutes} minutes. ${escapeHtml(ignore)}</p>`;
  return { subject: `${subject} for ${appName}`, text, html };
}
