// The README stays a front door (at most 220 lines) and no relative link in README.md or docs/**/*.md points at a
// file, or a heading of a Markdown file, that does not exist.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const readmeMaxLines = 220;

/** A link found in a Markdown document: its target as written and the line it is on (1-based). */
type Link = { readonly target: string; readonly line: number };

/** Markdown with fenced code blocks blanked and inline code removed, line numbers kept. */
function withoutCode(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  });
}

/** Inline links and images (`[text](target)`) whose target is relative: no scheme, not `mailto:`. */
function findRelativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  withoutCode(markdown).forEach((line, index) => {
    for (const match of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ target, line: index + 1 });
    }
  });
  return links;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function computeHeadingSlug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a document's headings, with GitHub's `-1`, `-2` suffixes for repeated ones. */
function computeAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    const slug = computeHeadingSlug(match[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Why a link from `fromFile` does not resolve, or undefined when it does. */
function computeBrokenLink(fromFile: string, target: string, readFile: (path: string) => string): string | undefined {
  const [pathPart = '', fragment] = target.split('#', 2);
  const path = pathPart === '' ? fromFile : resolve(dirname(fromFile), decodeURIComponent(pathPart));
  if (!existsSync(path)) return `${target}: no file ${relative(repoRoot, path)}`;
  if (fragment === undefined || fragment === '' || !path.endsWith('.md') || statSync(path).isDirectory())
    return undefined;
  return computeAnchors(readFile(path)).has(fragment.toLowerCase())
    ? undefined
    : `${target}: no heading #${fragment} in ${relative(repoRoot, path)}`;
}

function listMarkdown(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return listMarkdown(path);
      return entry.endsWith('.md') ? [path] : [];
    });
}

describe('findRelativeLinks', () => {
  const cases: { name: string; markdown: string; want: Link[] }[] = [
    {
      name: 'finds a link to a page',
      markdown: 'see [deploy](docs/deploy.md).',
      want: [{ target: 'docs/deploy.md', line: 1 }],
    },
    {
      name: 'keeps the anchor of a link',
      markdown: '\n[x](a.md#b-c)',
      want: [{ target: 'a.md#b-c', line: 2 }],
    },
    { name: 'finds a link to a heading of the same page', markdown: '[x](#top)', want: [{ target: '#top', line: 1 }] },
    { name: 'leaves out web links', markdown: '[npm](https://www.npmjs.com/) [m](mailto:a@b.c)', want: [] },
    { name: 'leaves out links in fenced code', markdown: '```\n[x](nowhere.md)\n```', want: [] },
    { name: 'leaves out links in inline code', markdown: 'write `[x](nowhere.md)` like this', want: [] },
    { name: 'finds images too', markdown: '![flow](img/flow.png)', want: [{ target: 'img/flow.png', line: 1 }] },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(findRelativeLinks(c.markdown), c.want));
});

describe('computeAnchors', () => {
  const cases: { name: string; markdown: string; want: string[] }[] = [
    {
      name: 'lower-cases and joins words with hyphens',
      markdown: '## The forwarder in the cluster',
      want: ['the-forwarder-in-the-cluster'],
    },
    {
      name: 'drops punctuation and code marks as GitHub does',
      markdown: '## Scale past one machine (`npm run bench:scale`)',
      want: ['scale-past-one-machine-npm-run-benchscale'],
    },
    { name: 'keeps hyphens inside words', markdown: '# x-kubernetes-validations', want: ['x-kubernetes-validations'] },
    { name: 'numbers repeated headings', markdown: '## Notes\n## Notes', want: ['notes', 'notes-1'] },
    { name: 'ignores comment lines in fenced code', markdown: '```\n# not a heading\n```', want: [] },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual([...computeAnchors(c.markdown)], c.want));
});

describe('computeBrokenLink', () => {
  const readme = join(repoRoot, 'README.md');
  const cases: { name: string; target: string; broken: boolean }[] = [
    { name: 'accepts an existing page', target: 'docs/architecture.md', broken: false },
    { name: 'accepts an existing heading of another page', target: 'docs/local-mode.md#requirements', broken: false },
    { name: 'refuses a page that does not exist', target: 'docs/no-such-page.md', broken: true },
    { name: 'refuses a heading that does not exist', target: 'docs/local-mode.md#no-such-heading', broken: true },
    { name: 'accepts a folder', target: 'docs', broken: false },
  ];
  for (const c of cases)
    test(c.name, () =>
      assert.equal(computeBrokenLink(readme, c.target, (p) => readFileSync(p, 'utf8')) !== undefined, c.broken),
    );
});

describe('the README and the docs pages', () => {
  test(`README.md has at most ${readmeMaxLines} lines`, () => {
    const lines = readFileSync(join(repoRoot, 'README.md'), 'utf8').trimEnd().split('\n').length;
    assert.ok(lines <= readmeMaxLines, `README.md has ${lines} lines; move detail into a docs/ page`);
  });

  test('every relative link in README.md and docs/**/*.md resolves', () => {
    const files = [join(repoRoot, 'README.md'), ...listMarkdown(join(repoRoot, 'docs'))];
    const read = (path: string) => readFileSync(path, 'utf8');
    const broken = files.flatMap((file) =>
      findRelativeLinks(read(file)).flatMap(({ target, line }) => {
        const why = computeBrokenLink(file, target, read);
        return why === undefined ? [] : [`${relative(repoRoot, file)}:${line}: ${why}`];
      }),
    );
    assert.deepEqual(broken, []);
  });

  // NOTE: docs/incoming/ holds notes waiting to be folded into the pages; they are checked for links, not listed.
  test('the README links to every docs page', () => {
    const linked = new Set(
      findRelativeLinks(readFileSync(join(repoRoot, 'README.md'), 'utf8')).map(({ target }) => target.split('#')[0]),
    );
    const pages = listMarkdown(join(repoRoot, 'docs'))
      .map((path) => relative(repoRoot, path))
      .filter((page) => !page.startsWith('docs/incoming/'));
    assert.deepEqual(
      pages.filter((page) => !linked.has(page)),
      [],
    );
  });
});
