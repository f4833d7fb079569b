import { showInvisibleCharacters } from '../../../../shared/visible-text';

// Files a client's phone is likely to warn about or refuse: programs and scripts, and web pages
// (an SVG drawing can carry a web page's scripts). Judged by the name's extension first (what the
// phone goes by), then by the type the browser reported.

const PROGRAMS = new Set([
  'apk',
  'app',
  'bat',
  'cmd',
  'com',
  'cpl',
  'dll',
  'dmg',
  'exe',
  'hta',
  'jar',
  'js',
  'jse',
  'lnk',
  'mjs',
  'msi',
  'msix',
  'msp',
  'pif',
  'pkg',
  'ps1',
  'psm1',
  'reg',
  'scr',
  'sh',
  'vb',
  'vbe',
  'vbs',
  'wsf',
  'wsh',
]);
const WEB_PAGES = new Set(['htm', 'html', 'mht', 'mhtml', 'shtml', 'xht', 'xhtml']);
const WEB_IMAGES = new Set(['svg', 'svgz']);

const PROGRAM_TYPES =
  /^(application\/(x-msdownload|x-msdos-program|x-ms-installer|x-msi|vnd\.microsoft\.portable-executable|x-sh|x-bat|javascript|x-javascript|java-archive|vnd\.android\.package-archive)|text\/javascript)$/;
const WEB_PAGE_TYPES = /^(text\/html|application\/xhtml\+xml)$/;

export type TFileRisk = 'program' | 'web page' | 'web image';

/** What kind of risky file this is, or null for an ordinary one. */
export function riskOf(file: { name: string; type: string }): TFileRisk | null {
  const extension = /\.([^./\\]+)$/.exec(file.name.trim().toLowerCase())?.[1] ?? '';
  const type = file.type.split(';')[0]!.trim().toLowerCase();
  if (PROGRAMS.has(extension) || PROGRAM_TYPES.test(type)) return 'program';
  if (WEB_PAGES.has(extension) || WEB_PAGE_TYPES.test(type)) return 'web page';
  if (WEB_IMAGES.has(extension) || type === 'image/svg+xml') return 'web image';
  return null;
}

/** "setup.exe is a program: the client's phone may warn them or refuse it. Send anyway?"; null for an ordinary file. */
export function describeRisk(file: { name: string; type: string }): string | null {
  const risk = riskOf(file);
  if (!risk) return null;
  const what = risk === 'program' ? 'a program' : risk === 'web page' ? 'a web page' : 'a web image (SVG) that can hold a web page';
  return `${showInvisibleCharacters(file.name)} is ${what}: the client's phone may warn them or refuse it. Send anyway?`;
}
