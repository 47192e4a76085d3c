#!/usr/bin/env node
// Issue 37's layout as a re-runnable codemod: moves files with `git mv` and rewrites every path that names a moved
// file, so it can be run again on a newer tree (one with more files that import moved modules) and fix those too.
//
//   node test/tools/relayout.mjs             move, rewrite, then prettier on the files it changed
//   node test/tools/relayout.mjs --dry-run   print the moves and the files it would change; change nothing
//   node test/tools/relayout.mjs --no-format leave formatting alone (prettier not run)
//   node test/tools/relayout.mjs --readme    rewrite README.md too (left alone by default: the integrator owns it)
//
// What it rewrites, in every tracked text file (not docs/history/, results/, package-lock.json, this file):
// - import specifiers (`from '…'`, `import '…'`, `import('…')`), relative or through package.json's `imports`
//   (`#shared/…`, `#test/…`): resolved from the file's old place, mapped through the moves, written from its new place
//   in the same style;
// - file-relative paths: `new URL('…', import.meta.url)` (a template's static part up to its last `/`) and
//   `join|resolve(import.meta.dirname | dirname(fileURLToPath(import.meta.url)), '…', …)`;
// - repository paths written out anywhere (docs, comments, package.json scripts, .ci/run, eslint globs):
//   `shared/topology/gotemplate/…`, `test/harness/…`, each moved file's full path (also as a regular
//   expression literal writes it, `test\/fixtures\/…`), and the bare names of the files
//   the CEL pattern renames (`cel-ip.ts` → `ip.ts`).
// Running it twice changes nothing: a move whose source is gone and whose destination exists is done, and a rewritten
// path no longer names a moved place. It refuses to run when a move's source and destination both exist.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path/posix';

const args = new Set(process.argv.slice(2));
const dryRun = args.has('--dry-run');
const format = !args.has('--no-format');
const withReadme = args.has('--readme');
const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
process.chdir(root);
const self = 'test/tools/relayout.mjs';

// ---- The layout ---------------------------------------------------------------------------------------------------

/** Whole folders: every file below `from` goes to the same place below `to`. */
const folderMoves = [
  // Go look-alikes (shared/lang/): the Go text/template + sprig engine.
  ['shared/topology/gotemplate', 'shared/lang/gotemplate'],
  // API schemas by group and version, as upstream's api/core/v1beta2, api/addons/v1beta2, ….
  ['shared/api/v1beta2', 'shared/api/core/v1beta2'],
  // Test support under one folder.
  ['test/harness', 'test/support/harness'],
  ['test/builders', 'test/support/builders'],
  ['test/oracles', 'test/support/oracles'],
  ['test/golden', 'test/support/golden'],
  ['test/fixtures', 'test/support/fixtures'],
  // The Helm chart's unit tests beside the infra they test (a test merged into the old folder follows).
  ['test/unit/chart', 'test/unit/infra/chart'],
];

/** Single files. */
const fileMoves = [
  // The general CEL libraries and the x-kubernetes-validations rules over them (also matched by the pattern below, for
  // files added later; listed so that a second run still knows where the old paths went).
  ['shared/topology/variables/cel-collections.ts', 'shared/lang/cel/collections.ts'],
  ['shared/topology/variables/cel-environment.ts', 'shared/lang/cel/environment.ts'],
  ['shared/topology/variables/cel-format.ts', 'shared/lang/cel/format.ts'],
  ['shared/topology/variables/cel-function-error.ts', 'shared/lang/cel/function-error.ts'],
  ['shared/topology/variables/cel-ip.ts', 'shared/lang/cel/ip.ts'],
  ['shared/topology/variables/cel-literals.ts', 'shared/lang/cel/literals.ts'],
  ['shared/topology/variables/cel-macros.ts', 'shared/lang/cel/macros.ts'],
  ['shared/topology/variables/cel-quantity.ts', 'shared/lang/cel/quantity.ts'],
  ['shared/topology/variables/cel-rules.ts', 'shared/lang/cel/rules.ts'],
  ['shared/topology/variables/cel-semver.ts', 'shared/lang/cel/semver.ts'],
  ['shared/topology/variables/cel-url.ts', 'shared/lang/cel/url.ts'],
  // OpenAPI schema validation as the API server does it (kube-openapi, apiextensions, apimachinery).
  ['shared/topology/variables/schema-validator.ts', 'shared/lang/openapi/schema-validator.ts'],
  ['shared/topology/variables/structural.ts', 'shared/lang/openapi/structural.ts'],
  ['shared/topology/variables/string-formats.ts', 'shared/lang/openapi/string-formats.ts'],
  ['shared/topology/variables/apimachinery-validation.ts', 'shared/lang/openapi/apimachinery-validation.ts'],
  ['shared/topology/variables/field-error.ts', 'shared/lang/openapi/field-error.ts'],
  ['shared/topology/variables/json-value.ts', 'shared/lang/openapi/json-value.ts'],
  // The OpenAPI schema type (CAPI's JSONSchemaProps) beside the validator that reads it, so shared/lang/ imports nothing
  // from shared/api/ (shared/api/ imports lang/go/ for Go durations).
  ['shared/api/jsonschema.ts', 'shared/lang/openapi/jsonschema.ts'],
  // cluster.x-k8s.io/v1beta1 (the edge's conversion source).
  ['shared/api/cluster.ts', 'shared/api/core/v1beta1/cluster.ts'],
  ['shared/api/cluster-class.ts', 'shared/api/core/v1beta1/cluster-class.ts'],
  ['shared/api/condition.ts', 'shared/api/core/v1beta1/condition.ts'],
  ['shared/api/machine.ts', 'shared/api/core/v1beta1/machine.ts'],
  ['shared/api/machine-deployment.ts', 'shared/api/core/v1beta1/machine-deployment.ts'],
  ['shared/api/machine-health-check.ts', 'shared/api/core/v1beta1/machine-health-check.ts'],
  ['shared/api/machine-pool.ts', 'shared/api/core/v1beta1/machine-pool.ts'],
  ['shared/api/variables.ts', 'shared/api/core/v1beta1/variables.ts'],
  // The other groups.
  ['shared/api/addons-v1beta1.ts', 'shared/api/addons/v1beta1/cluster-resource-set.ts'],
  ['shared/api/addons.ts', 'shared/api/addons/v1beta2/cluster-resource-set.ts'],
  ['shared/api/operator.ts', 'shared/api/operator/v1alpha2/provider.ts'],
  ['shared/api/rollout.ts', 'shared/api/management/v1alpha1/cluster-rollout.ts'],
  // Code fixtures out of test/unit/, so that it holds only tests that mirror modules.
  ['test/unit/addons/fixtures.ts', 'test/support/fixtures/addons.ts'],
  ['test/unit/providers/fixtures.ts', 'test/support/fixtures/providers.ts'],
  ['test/unit/topology/patches/fixtures.ts', 'test/support/fixtures/topology/patches.ts'],
  ['test/unit/topology/variables/fixtures.ts', 'test/support/fixtures/topology/variables.ts'],
  ['test/unit/infra/test-app.ts', 'test/support/builders/test-app.ts'],
  // Unit tests that did not mirror their module's path: `<module>.test.ts`, or `<module>.<aspect>.test.ts` where a
  // module has more than one, or `<folder>.test.ts` for a test of a folder's index.ts.
  ['test/unit/api/conversion/round-trip.test.ts', 'test/unit/api/conversion/cluster.round-trip.test.ts'],
  ['test/unit/api/crds.test.ts', 'test/unit/api/gen/compute-crd.test.ts'],
  ['test/unit/api/upstream-contract.test.ts', 'test/unit/api/addons/v1beta2/cluster-resource-set.upstream.test.ts'],
  ['test/unit/api/v1beta2-upstream-examples.test.ts', 'test/unit/api/core/v1beta2/v1beta2.upstream-examples.test.ts'],
  ['test/unit/bench/compute-scale-model.test.ts', 'test/unit/bench/scale/compute-scale-model.test.ts'],
  ['test/unit/bench/count-requests.test.ts', 'test/unit/bench/side/count-requests.test.ts'],
  ['test/unit/bench/side-report.test.ts', 'test/unit/bench/side/side-report.test.ts'],
  ['test/unit/cli/plan-current-state.test.ts', 'test/unit/cli/plan.current-state.test.ts'],
  ['test/unit/infra/new-app-defaults.test.ts', 'test/unit/infra/capi-serverless-stack.new-app-defaults.test.ts'],
  ['test/unit/infra/secrets.test.ts', 'test/unit/infra/capi-serverless-stack.secrets.test.ts'],
  ['test/unit/infra/side-by-side.test.ts', 'test/unit/infra/capi-serverless-stack.side-by-side.test.ts'],
  ['test/unit/lang/go/regexp-callers.test.ts', 'test/unit/lang/go/regexp.callers.test.ts'],
  ['test/unit/local/help-and-kubeconfig.test.ts', 'test/unit/local/local-config.test.ts'],
  ['test/unit/pricing/deployed-stack.test.ts', 'test/unit/pricing/synthesize-stack.test.ts'],
  ['test/unit/runtime/record-metrics.test.ts', 'test/unit/runtime/middlewares/record-metrics.test.ts'],
  ['test/unit/topology/gotemplate/golden.test.ts', 'test/unit/lang/gotemplate/gotemplate.golden.test.ts'],
  ['test/unit/topology/outcome-hooks.test.ts', 'test/unit/topology/outcome.hooks.test.ts'],
  ['test/unit/topology/patches/external-patches.test.ts', 'test/unit/topology/patches/external-patch-request.test.ts'],
  ['test/unit/topology/validation.test.ts', 'test/unit/topology/validation/validate-cluster-class.test.ts'],
  [
    'test/unit/topology/validation/cluster-class-status-variables.test.ts',
    'test/unit/topology/validation/validate-cluster-class.status-variables.test.ts',
  ],
  ['test/unit/chart/chart.test.ts', 'test/unit/infra/chart/capi-serverless.test.ts'],
  ['test/unit/chart/resolve-outputs.ts', 'test/support/builders/resolve-outputs.ts'],
  ['test/unit/diff/injected-regressions.test.ts', 'test/unit/diff/known-differences.injected-regressions.test.ts'],
  [
    'test/unit/functions/forwarder/forwarder-rbac.test.ts',
    'test/unit/infra/chart/capi-serverless.forwarder-rbac.test.ts',
  ],
  [
    'test/unit/runtime-sdk/compute-extension-config-unready.test.ts',
    'test/unit/runtime-sdk/compute-extension-config-status.unready.test.ts',
  ],
  ['test/unit/topology/map-owned-change.test.ts', 'test/unit/topology/controller.map-owned-change.test.ts'],
  ['test/unit/topology/paused.test.ts', 'test/unit/topology/reconcile-topology.paused.test.ts'],
  [
    'test/unit/upstream-envtest/parse-go-test-output.test.ts',
    'test/unit/upstream-envtest/run.parse-go-test-output.test.ts',
  ],
];

/** Files picked by name in a folder, so that one added later moves too: the general CEL libraries. */
const patternMoves = [{ from: 'shared/topology/variables', match: /^cel-(.+\.ts)$/, to: 'shared/lang/cel' }];

// ---- The plan: every file's new path ------------------------------------------------------------------------------

const tracked = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean);
const trackedSet = new Set(tracked);
const isDir = (p) => existsSync(p) && statSync(p).isDirectory();

/** Old path → new path, for every file that moves now or has moved in an earlier run. */
const fileMap = new Map();
/** Folder → folder, for paths that name a folder (and for text that names one). */
const folderMap = new Map(folderMoves);
const problems = [];

const addFile = (from, to) => {
  if (fileMap.has(from) && fileMap.get(from) !== to) problems.push(`${from} is moved twice`);
  fileMap.set(from, to);
};
for (const [from, to] of fileMoves) addFile(from, to);
for (const { from, match, to } of patternMoves) {
  for (const file of tracked) {
    if (path.dirname(file) !== from) continue;
    const m = match.exec(path.basename(file));
    if (m) addFile(file, `${to}/${m[1]}`);
  }
}
// A unit test follows its module: test/unit/<module>.test.ts and test/unit/<module>.<aspect>.test.ts.
for (const [from, to] of [...fileMap]) {
  if (!from.startsWith('shared/') || !from.endsWith('.ts')) continue;
  const oldBase = `test/unit/${from.slice('shared/'.length, -'.ts'.length)}`;
  const newBase = `test/unit/${to.slice('shared/'.length, -'.ts'.length)}`;
  for (const file of tracked) {
    if (file.startsWith(`${oldBase}.`) && file.endsWith('.test.ts') && !fileMap.has(file)) {
      addFile(file, newBase + file.slice(oldBase.length));
    }
  }
}
for (const [from, to] of folderMoves) {
  if (from.startsWith('shared/')) {
    const tFrom = `test/unit/${from.slice('shared/'.length)}`;
    if (!folderMap.has(tFrom)) folderMap.set(tFrom, `test/unit/${to.slice('shared/'.length)}`);
  }
}

/** The new path of a path (file or folder) of the old tree. */
function mapPath(p) {
  if (fileMap.has(p)) return fileMap.get(p);
  let best;
  for (const [from, to] of folderMap) {
    if ((p === from || p.startsWith(`${from}/`)) && (!best || from.length > best[0].length)) best = [from, to];
  }
  return best ? best[1] + p.slice(best[0].length) : p;
}

// No destination may lie under a source, or a second run would move it again.
for (const to of [...fileMap.values(), ...folderMap.values()]) {
  for (const from of [...fileMap.keys(), ...folderMap.keys()]) {
    if (to === from || to.startsWith(`${from}/`)) problems.push(`destination ${to} lies under source ${from}`);
  }
}

/** The moves to make now: tracked files whose new path differs. */
const moves = [];
for (const file of tracked) {
  const to = mapPath(file);
  if (to === file) continue;
  if (existsSync(to)) problems.push(`both ${file} and ${to} exist: merge them by hand, then run again`);
  else moves.push([file, to]);
}
for (const [from, to] of fileMap) {
  if (!trackedSet.has(from) && !trackedSet.has(to)) console.warn(`relayout: neither ${from} nor ${to} exists; skipped`);
}
if (problems.length > 0) {
  for (const p of problems) console.error(`relayout: ${p}`);
  process.exit(1);
}

// ---- Rewriting --------------------------------------------------------------------------------------------------

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
/** package.json `imports`: '#shared/*' → 'shared/'. */
const aliases = Object.entries(pkg.imports ?? {})
  .filter(([k, v]) => k.endsWith('/*') && typeof v === 'string' && v.endsWith('/*'))
  .map(([k, v]) => [k.slice(0, -1), path.normalize(v.slice(0, -1)) + '/']);

const existsOld = (p) => p === '.' || trackedSet.has(p) || isDir(p);
/** A path this tree has, or one the moves know (a file merged in after its folder moved names its old place). */
const known = (p) => !p.startsWith('..') && (existsOld(p) || mapPath(p) !== p);

/** Where a file stood before the moves, for a file that a merge brought to its new place with old relative paths. */
function formerPath(p) {
  for (const [from, to] of fileMap) if (to === p) return from;
  for (const [from, to] of folderMap) if (p.startsWith(`${to}/`)) return from + p.slice(to.length);
  return undefined;
}

/** The first of `dirs` from which `rel` names a known path: that path and the folder it was read from. */
function resolveFrom(rel, dirs) {
  for (const dir of dirs) {
    const resolved = tidy(path.join(dir, rel || '.'));
    if (known(resolved)) return { resolved, dir };
  }
  return undefined;
}

/** A relative path from dir to target, in the `./x` / `../x` form specifiers use. */
function relativeFrom(dir, target, trailingSlash) {
  let rel = path.relative(dir, target) || '.';
  if (!rel.startsWith('.')) rel = `./${rel}`;
  if (trailingSlash && !rel.endsWith('/')) rel += '/';
  return rel;
}

/** The specifier for the same module from the file's new place, or undefined when it does not change. */
function rewriteSpecifier(spec, dirs, newDir) {
  for (const [alias, target] of aliases) {
    if (!spec.startsWith(alias)) continue;
    const resolved = target + spec.slice(alias.length);
    const mapped = mapPath(resolved);
    if (mapped === resolved) return undefined;
    const newAlias = aliases.find(([, t]) => mapped.startsWith(t));
    return newAlias ? newAlias[0] + mapped.slice(newAlias[1].length) : relativeFrom(newDir, mapped, false);
  }
  if (!spec.startsWith('./') && !spec.startsWith('../')) return undefined;
  const found = resolveFrom(spec, dirs);
  if (!found) return undefined;
  const { resolved, dir } = found;
  const mapped = mapPath(resolved);
  if (mapped === resolved && newDir === dir) return undefined;
  const rel = relativeFrom(newDir, mapped, spec.endsWith('/'));
  return rel === spec ? undefined : rel;
}

/** A path without `.` segments or a trailing slash, `.` for the folder itself. */
const tidy = (p) => path.normalize(p || '.').replace(/\/$/, '') || '.';

/** A file-relative path (as `new URL` or `join` take it) from the new place, or undefined when it does not change. */
function rewriteRelative(rel, dirs, newDir) {
  const found = resolveFrom(rel, dirs);
  if (!found) return undefined;
  const { resolved, dir } = found;
  const mapped = mapPath(resolved);
  if (mapped === resolved && newDir === dir) return undefined;
  const out = relativeFrom(newDir, mapped, rel.endsWith('/') || rel === '' || rel === '.');
  return tidy(out) === tidy(rel) ? undefined : out;
}

const importPattern = /(\b(?:from|import)\s*\(?\s*)(['"])([^'"\n]+)\2/g;
// `new URL('…' or `…${`, import.meta.url)`: the static text up to the closing quote or the first `${`.
const urlPattern = /(new URL\(\s*)(['"`])((?:(?!\2)[^$\n\\]|\$(?!\{))*)(?=(\2|\$\{))/g;
const dirnamePattern =
  /(\b(?:join|resolve)\(\s*(?:import\.meta\.dirname|dirname\(fileURLToPath\(import\.meta\.url\)\)))((?:\s*,\s*'[^'\n]*')+)/g;

function rewriteCode(text, dirs, newDir) {
  text = text.replace(importPattern, (all, head, q, spec) => {
    const next = rewriteSpecifier(spec, dirs, newDir);
    return next === undefined ? all : `${head}${q}${next}${q}`;
  });
  text = text.replace(urlPattern, (all, head, q, lit, _close, offset, whole) => {
    const after = whole.slice(offset + all.length, offset + all.length + 200);
    if (!/^[^)]*?,\s*import\.meta\.url\s*\)/s.test(after.replace(/^(['"`])/, ''))) return all;
    if (/^[a-z]+:/.test(lit) || lit.startsWith('/')) return all;
    const cut = lit.lastIndexOf('/') + 1;
    const dirPart = lit.slice(0, cut);
    const rest = lit.slice(cut);
    // The whole path when it names a file of the tree, else its folder part (a template, or a file not yet written).
    const isWhole = !after.startsWith('${') && rest !== '' && resolveFrom(lit, dirs) !== undefined;
    const next = isWhole ? rewriteRelative(lit, dirs, newDir) : rewriteRelative(dirPart, dirs, newDir);
    if (next === undefined) return all;
    const out = isWhole ? next.replace(/\/$/, '') : next + rest;
    return `${head}${q}${out}`;
  });
  text = text.replace(dirnamePattern, (all, head, argText) => {
    const parts = [...argText.matchAll(/'([^'\n]*)'/g)].map((m) => m[1]);
    const joined = path.join(...parts);
    const found = resolveFrom(joined, dirs);
    if (!found) return all;
    const { resolved, dir } = found;
    const mapped = mapPath(resolved);
    if (mapped === resolved && newDir === dir) return all;
    const rel = path.relative(newDir, mapped);
    if (tidy(rel) === tidy(joined)) return all;
    const segments = rel === '' ? ['.'] : rel.split('/');
    return `${head}, ${segments.map((s) => `'${s}'`).join(', ')}`;
  });
  return text;
}

// Repository paths written out in text: every moved file's full path and every moved folder.
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const textKeys = [
  ...[...fileMap.keys()].map((k) => [k, `(?![A-Za-z0-9_-])`]),
  ...[...folderMap.keys()].map((k) => [k, `(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])`]),
].sort((a, b) => b[0].length - a[0].length);
const textPattern = new RegExp(
  `(?<![A-Za-z0-9_-])(?:${textKeys.map(([k, tail]) => `${escape(k)}${tail}`).join('|')})`,
  'g',
);
// Bare names of files a pattern renamed (`cel-ip.ts` → `ip.ts`), as prose beside a full path writes them.
const renamed = new Map();
for (const { from } of patternMoves) {
  for (const [oldPath, newPath] of fileMap) {
    if (path.dirname(oldPath) === from && path.basename(oldPath) !== path.basename(newPath)) {
      renamed.set(path.basename(oldPath), path.basename(newPath));
    }
  }
}
const bareKeys = [...renamed.keys()].sort((a, b) => b.length - a.length).map(escape);
const barePattern =
  bareKeys.length > 0 ? new RegExp(`(?<![A-Za-z0-9_./-])(?:${bareKeys.join('|')})(?![A-Za-z0-9_-])`, 'g') : undefined;
// The same paths inside a regular-expression literal (`/test\/fixtures\/plan\/bad\.yaml/`).
const inRegexp = (p) => p.replaceAll('/', '\\/').replaceAll('.', '\\.');
const regexpPattern = new RegExp(
  `(?<![A-Za-z0-9_-])(?:${textKeys.map(([k, tail]) => `${escape(inRegexp(k))}${tail}`).join('|')})`,
  'g',
);
const rewriteText = (text) => {
  const out = text
    .replace(textPattern, (p) => mapPath(p))
    .replace(regexpPattern, (p) => inRegexp(mapPath(p.replaceAll('\\/', '/').replaceAll('\\.', '.'))));
  return barePattern ? out.replace(barePattern, (name) => renamed.get(name)) : out;
};

const codeExt = /\.(?:ts|mts|cts|mjs|cjs|js)$/;
const skip = (file) =>
  file === self ||
  file === 'package-lock.json' ||
  (file === 'README.md' && !withReadme) ||
  file.startsWith('docs/history/') ||
  file.startsWith('node_modules/') ||
  file.startsWith('shared/api/crds/') ||
  /(^|\/)results\//.test(file) ||
  /\.(?:png|jpg|gif|ico|gz|tgz|zip|sum)$/.test(file);

const changed = [];
for (const file of tracked) {
  if (skip(file) || !existsSync(file) || statSync(file).size > 2_000_000) continue;
  const before = readFileSync(file, 'utf8');
  if (before.includes('\0')) continue;
  const newFile = mapPath(file);
  const former = newFile === file ? formerPath(file) : undefined;
  const dirs = [path.dirname(file), ...(former ? [path.dirname(former)] : [])];
  let after = codeExt.test(file) ? rewriteCode(before, dirs, path.dirname(newFile)) : before;
  after = rewriteText(after);
  if (after !== before) {
    changed.push(newFile);
    if (!dryRun) writeFileSync(file, after);
  }
}

// ---- Moving -------------------------------------------------------------------------------------------------------

for (const [from, to] of moves) {
  if (dryRun) {
    console.log(`move ${from} -> ${to}`);
    continue;
  }
  mkdirSync(path.dirname(to), { recursive: true });
  execFileSync('git', ['mv', from, to]);
}
if (!dryRun) {
  // Folders left empty by the moves.
  const emptied = [...new Set(moves.map(([from]) => path.dirname(from)))].sort((a, b) => b.length - a.length);
  for (let dir of emptied) {
    while (dir !== '.' && isDir(dir) && readdirSync(dir).length === 0) {
      rmdirSync(dir);
      dir = path.dirname(dir);
    }
  }
}
for (const file of changed) console.log(`${dryRun ? 'would rewrite' : 'rewrote'} ${file}`);

const formattable = changed.filter((f) => /\.(?:ts|mts|mjs|js|json|md|yaml|yml)$/.test(f));
if (format && !dryRun && formattable.length > 0) {
  execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', ...formattable], { stdio: 'inherit' });
}
console.log(`relayout: ${moves.length} files moved, ${changed.length} files rewritten${dryRun ? ' (dry run)' : ''}`);
