import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Reads README.md "Layout" (the tree drawn in a code block) and says where it and the folders on
// disk disagree. Read by tests/unit/manual-layout.test.ts.
//
// The drawing's grammar: a line at column 0 names top-level paths (`server/`, `client/src/`, or
// files, comma-separated); a line indented 2 names folders inside the last top-level folder
// (`core/`, or several: `auth/ audit/ access/`), and perhaps, after two spaces, the first folder
// inside it; a line whose first word is a folder at a deeper indent names a folder inside the last
// indented-2 folder. Any other line continues a description. A folder drawn with folders inside
// must draw all of them.

type TEntry = { path: string; line: number; children: TEntry[] };

/** Top-level folders that hold nothing of the repository's own (installed, built, generated). */
const NOT_DRAWN = new Set(['node_modules', 'dist', 'bench']);

/** The folders a line starts with: `core/`, `auth/ audit/ access/`, `dev/provider-sim/`. */
const FOLDER_RUN = /^(?:[\w.-]+\/)+(?: (?:[\w.-]+\/)+)*/;
/** A folder and then its description: after an indented-2 line's folders, its first folder inside. */
const FOLDER_THEN_TEXT = /^((?:[\w.-]+\/)+) +\S/;

const entry = (entryPath: string, line: number): TEntry => ({ path: entryPath, line, children: [] });

/** The drawing in README.md's "Layout", as entries with the line each is drawn on. */
export function readLayout(readme: string): TEntry[] {
  const lines = readme.split('\n');
  const heading = lines.indexOf('## Layout');
  if (heading < 0) throw new Error('README.md has no "## Layout" section');
  const open = lines.findIndex((text, index) => index > heading && text.startsWith('```'));
  const close = lines.findIndex((text, index) => index > open && text.startsWith('```'));
  const top: TEntry[] = [];
  let indented: TEntry[] = [];
  lines.slice(open + 1, close).forEach((text, offset) => {
    const line = open + 2 + offset;
    const body = text.trimStart();
    const indent = text.length - body.length;
    const parent = top.at(-1);
    if (body === '') return;
    if (indent === 0) {
      const names = (body.split(/ {2,}/)[0] ?? '').split(/,? /).filter(Boolean);
      top.push(...names.map((name) => entry(name, line)));
      indented = [];
    } else if (indent === 2 && parent) {
      const run = FOLDER_RUN.exec(body)?.[0] ?? '';
      const folders = run ? run.split(' ').map((name) => entry(`${parent.path}${name}`, line)) : [];
      parent.children.push(...folders);
      indented.push(...folders);
      const last = folders.at(-1);
      const inside = /^ {2,}/.test(body.slice(run.length)) ? FOLDER_THEN_TEXT.exec(body.slice(run.length).trimStart())?.[1] : undefined;
      if (last && inside) last.children.push(entry(`${last.path}${inside}`, line));
    } else {
      const last = indented.at(-1);
      const inside = FOLDER_THEN_TEXT.exec(body)?.[1];
      if (last && inside) last.children.push(entry(`${last.path}${inside}`, line));
    }
  });
  return top;
}

const foldersIn = (root: string, dir: string) =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    // An empty folder is nothing git keeps: a checkout elsewhere would not have it.
    .filter((entry) => entry.isDirectory() && readdirSync(path.join(root, dir, entry.name)).length > 0)
    .map((entry) => entry.name);

/** Where the drawing and the tree under `root` disagree, one sentence each. */
export function layoutProblems(root: string): string[] {
  const top = readLayout(readFileSync(path.join(root, 'README.md'), 'utf8'));
  const problems: string[] = [];
  const check = (entry: TEntry) => {
    if (!existsSync(path.join(root, entry.path))) problems.push(`README.md:${entry.line}: ${entry.path} is drawn but does not exist`);
    else if (entry.children.length > 0) {
      const drawn = new Set(entry.children.map((child) => child.path.slice(entry.path.length).split('/')[0]));
      for (const folder of foldersIn(root, entry.path)) {
        if (!drawn.has(folder))
          problems.push(`README.md:${entry.line}: ${entry.path}${folder}/ exists but is not drawn under ${entry.path}`);
      }
    }
    entry.children.forEach(check);
  };
  top.forEach(check);
  const drawnTop = new Set(top.map((entry) => entry.path.split('/')[0]));
  for (const folder of foldersIn(root, '')) {
    if ((folder.startsWith('.') && folder !== '.ci') || NOT_DRAWN.has(folder)) continue;
    if (!drawnTop.has(folder)) problems.push(`README.md: ${folder}/ exists but is not drawn in "Layout"`);
  }
  return problems;
}
