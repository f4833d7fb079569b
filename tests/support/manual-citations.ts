import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Finds every place the repository cites the manual (README.md "The manual", citing it) and
// says which point at nothing. Read by tests/unit/manual-citations.test.ts.

export type TCitationProblem = {
  /** The citing file, relative to the root, with `/` between folders. */
  file: string;
  line: number;
  /** What was cited, as one line: a file and title, a link, a decision number. */
  cited: string;
  problem: string;
};

type TSections = { titles: Set<string>; anchors: Set<string> };

/** Folders never read: installed, built, generated, third-party, or scratch (dot-folders but .ci). */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'bench/results', 'tests/fixtures', 'tests/e2e/screenshots']);
const BINARY = /\.(png|jpe?g|gif|webp|ico|pdf|zip|gz|ttf|woff2?|otf|db|sqlite)$/i;

/** Every text file that may cite the manual, relative to `root`. */
export function listCitingFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if ((entry.name.startsWith('.') && entry.name !== '.ci') || SKIPPED_DIRS.has(rel)) continue;
        walk(rel);
      } else if (entry.isFile() && !BINARY.test(entry.name) && entry.name !== 'package-lock.json') {
        found.push(rel);
      }
    }
  };
  walk('');
  return found.sort();
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * A markdown file's sections: its headings, and the bold lead-in that starts a paragraph
 * (`**Unknown outcome.** A send…`), which the manual uses as a minor heading. Only headings
 * have anchors. Nothing inside a fenced code block counts.
 */
export function sectionsOf(markdown: string): TSections {
  const titles = new Set<string>();
  const anchors = new Set<string>();
  let fenced = false;
  let previous = '';
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) {
      const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
      if (heading) {
        const title = (heading[1] ?? '').replace(/`/g, '');
        titles.add(title);
        let anchor = headingAnchor(title);
        for (let n = 1; anchors.has(anchor); n++) anchor = `${headingAnchor(title)}-${n}`;
        anchors.add(anchor);
      }
      const leadIn = /^(?:[-*]\s+)?\*\*([^*]+?)[.:]?\*\*/.exec(line);
      if (leadIn?.[1] && previous.trim() === '') titles.add(leadIn[1].trim());
    }
    previous = line;
  }
  return { titles, anchors };
}

// A citation may run over a line break inside a comment: the break, the next line's indent and
// its comment marker (`*`, `//`, `#`) read as one space.
const BREAK = String.raw`[ \t]*\r?\n[ \t]*(?:\*(?!/)|//+|#+)?[ \t]*`;
const GAP = String.raw`(?:${BREAK}|[ \t]+)`;
const MD_NAME = String.raw`(?:[\w.-]+/)*(?:README|ARCHITECTURE)(?:\.md)?|(?:[\w.-]+/)*[\w.-]+\.md`;
const QUOTED = String.raw`["“]((?:[^"”\n]|${BREAK}){1,120}?)["”]`;
/** `server/access/README.md "Ethical walls"`, `README "Records"`, `ARCHITECTURE.md "The rule"`. */
const SECTION_CITATION = new RegExp(String.raw`(?<![\w./-])(${MD_NAME})${GAP}${QUOTED}`, 'g');
/** More titles of the same file after one: `README "Business hours", "Scheduled sends"`, `… and "Files"`. */
const MORE_TITLES = new RegExp(String.raw`(?:,(?:${GAP}(?:and|or))?|${GAP}(?:and|or))${GAP}${QUOTED}`, 'y');
/** A markdown file named by its path: `server/decisions/0016-ethical-walls-in-sql.md`. */
const FILE_CITATION = /(?<![\w./-])((?:[\w.-]+\/)+[\w.-]+\.md)(?![\w/-])/g;
/** `decision 0014`. */
const DECISION_NUMBER = /\bdecision\s+(\d{4})\b/gi;
/** In markdown: `[text](target)`, not a web address. */
const MARKDOWN_LINK = /\[[^\]\n]*\]\(([^)\s]+)\)/g;
/** In markdown: a section of the same file, `see "Durable client"`. */
const SEE_QUOTED = new RegExp(String.raw`\b[Ss]ee${GAP}${QUOTED}`, 'g');

const oneLine = (text: string) => text.replace(new RegExp(BREAK, 'g'), ' ').replace(/\s+/g, ' ');

/** Checks every citation under `root` (default: every file `listCitingFiles` finds). */
export function checkCitations(root: string, files = listCitingFiles(root)): TCitationProblem[] {
  const problems: TCitationProblem[] = [];
  const markdown = files.filter((file) => file.endsWith('.md'));
  const sectionCache = new Map<string, TSections>();
  const sections = (file: string) => {
    let known = sectionCache.get(file);
    if (!known) sectionCache.set(file, (known = sectionsOf(readFileSync(path.join(root, file), 'utf8'))));
    return known;
  };
  const exists = (rel: string) => existsSync(path.join(root, rel));
  // A path is read from the root first, then from the citing file's folder.
  const resolve = (from: string, target: string) =>
    [path.posix.normalize(target), path.posix.join(path.posix.dirname(from), target)].find(
      (candidate) => !candidate.startsWith('..') && exists(candidate),
    );
  const decisions = exists('server/decisions') ? readdirSync(path.join(root, 'server/decisions')) : [];

  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    const reported = new Map<string, { index: number; problem: TCitationProblem }>();
    // A missing file is said once per line, though a link or a section citation names it too.
    const report = (index: number, cited: string, problem: string) => {
      const line = lineOf(index);
      const key = `${line}\0${problem}`;
      if (!reported.has(key)) reported.set(key, { index, problem: { file, line, cited: oneLine(cited), problem } });
    };

    const checkSection = (index: number, name: string, title: string) => {
      const cited = `${name} "${title}"`;
      if (name.includes('/')) {
        const target = resolve(file, name);
        if (!target) report(index, cited, `there is no file ${name}`);
        else if (!sections(target).titles.has(title)) report(index, cited, `${target} has no section "${title}"`);
        return;
      }
      // Cited by its name alone: the one file of that name with that section.
      const base = name.endsWith('.md') ? name : `${name}.md`;
      const holders = markdown.filter((md) => path.posix.basename(md) === base && sections(md).titles.has(title));
      if (holders.length === 0) report(index, cited, `no ${base} has a section "${title}"`);
      else if (holders.length > 1) report(index, cited, `"${title}" is a section of ${holders.join(' and ')}: name the file`);
    };
    for (const match of text.matchAll(SECTION_CITATION)) {
      const [whole, name = '', title = ''] = match;
      checkSection(match.index, name, oneLine(title).trim());
      MORE_TITLES.lastIndex = match.index + whole.length;
      for (let more = MORE_TITLES.exec(text); more; more = MORE_TITLES.exec(text)) {
        checkSection(more.index, name, oneLine(more[1] ?? '').trim());
      }
    }

    for (const match of text.matchAll(FILE_CITATION)) {
      const [, cited = ''] = match;
      if (!resolve(file, cited)) report(match.index, cited, `there is no file ${cited}`);
    }

    for (const match of text.matchAll(DECISION_NUMBER)) {
      const [cited, number = ''] = match;
      if (!decisions.some((name) => name.startsWith(`${number}-`) && name.endsWith('.md'))) {
        report(match.index, cited, `there is no server/decisions/${number}-….md`);
      }
    }

    for (const match of file.endsWith('.md') ? text.matchAll(MARKDOWN_LINK) : []) {
      const [, target = ''] = match;
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const [linkPath, anchor] = target.split('#') as [string, string | undefined];
      const linked = linkPath ? path.posix.join(path.posix.dirname(file), linkPath) : file;
      if (!exists(linked)) report(match.index, target, `there is no file ${linked}`);
      else if (anchor !== undefined && linked.endsWith('.md') && !sections(linked).anchors.has(anchor)) {
        report(match.index, target, `${linked} has no heading with the anchor #${anchor}`);
      }
    }
    for (const match of file.endsWith('.md') ? text.matchAll(SEE_QUOTED) : []) {
      const title = oneLine(match[1] ?? '').trim();
      if (!sections(file).titles.has(title)) report(match.index, `see "${title}"`, `${file} has no section "${title}"`);
    }
    problems.push(...[...reported.values()].sort((a, b) => a.index - b.index).map(({ problem }) => problem));
  }
  return problems;
}

/** One line per problem, `file:line: cited — problem`, for a failure message a person can act on. */
export function describeProblems(problems: TCitationProblem[]): string[] {
  return problems.map(({ file, line, cited, problem }) => `${file}:${line}: ${cited} — ${problem}`);
}
