// `capi-serverless plan`: reads manifests, computes one topology pass in memory, prints the resulting objects.
import { stringify } from 'yaml';
import {
  computeInputApiVersions,
  computeInputVersion,
  convertInputsToHub,
  convertPlan,
  OutputVersions,
  type OutputVersion,
} from '#shared/cli/plan-versions.ts';
import { getPlanRuntime, isExtensionConfig } from '#shared/cli/plan-extensions.ts';
import { deterministicSuffix, readManifests } from '#shared/cli/plan-inputs.ts';
import { fleetFlags, fleetPlanUsage, runFleetPlan } from '#shared/cli/plan-fleet.ts';
import { CapiError } from '#shared/errors/index.ts';
import { computePlan, type PlannedObject, type PlannedUpgrade } from '#shared/cli/plan/compute-plan.ts';

type Streams = { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown } };

export type PlanArgs = {
  files: string[];
  output: 'yaml' | 'json';
  diff: boolean;
  /** Version to print Cluster API objects in; by default the version of the input's. */
  outputVersion?: OutputVersion;
  /** A cluster whose ExtensionConfigs (as discovered there) plan may call. */
  kubeconfig?: string;
};

export function parsePlanArgs(argv: readonly string[]): PlanArgs {
  const args: PlanArgs = { files: [], output: 'yaml', diff: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-f' || a === '--file') {
      const v = argv[++i];
      if (!v) throw new CapiError(`${a} needs a file or directory`);
      args.files.push(v);
    } else if (a === '-o' || a === '--output') {
      const v = argv[++i];
      if (v !== 'yaml' && v !== 'json') throw new CapiError(`-o must be yaml or json, got ${JSON.stringify(v)}`);
      args.output = v;
    } else if (a === '--output-version') {
      const v = argv[++i];
      if (!OutputVersions.some((version) => version === v)) {
        throw new CapiError(`--output-version must be ${OutputVersions.join(' or ')}, got ${JSON.stringify(v)}`);
      }
      args.outputVersion = v as OutputVersion;
    } else if (a === '--kubeconfig') {
      const v = argv[++i];
      if (!v) throw new CapiError(`${a} needs a kubeconfig file`);
      args.kubeconfig = v;
    } else if (a === '--diff') args.diff = true;
    else throw new CapiError(`unknown argument ${JSON.stringify(a)}`);
  }
  if (args.files.length === 0) throw new CapiError('plan needs at least one -f <file-or-dir>');
  return args;
}

/** A line diff of two YAML renderings (`-` removed, `+` added), enough to see what a pass changes. */
export function computeLineDiff(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out.filter((l) => l.trim() !== '').join('\n');
}

/**
 * The upgrade plan of a Cluster, as upstream's status.controlPlane/workers.upgradePlan list it.
 *
 * @example
 * describeUpgrade({ cluster: 'Cluster default/c1', controlPlane: ['v1.34.0', 'v1.35.0'], workers: ['v1.35.0'] });
 * // 'upgrade plan of Cluster default/c1: control plane v1.34.0 → v1.35.0; workers v1.35.0'
 */
export function describeUpgrade(u: PlannedUpgrade): string {
  const cp = u.controlPlane.length > 0 ? u.controlPlane.join(' → ') : 'up to date';
  const workers = u.workers.length > 0 ? `; workers ${u.workers.join(' → ')}` : '';
  return `upgrade plan of ${u.cluster}: control plane ${cp}${workers}`;
}

const describe = (p: PlannedObject) =>
  `${p.object.kind} ${p.object.metadata.namespace ?? ''}/${p.object.metadata.name ?? ''}${
    p.operation === 'replaced'
      ? ` by ${p.object.metadata.namespace ?? ''}/${p.replacedBy ?? ''} (goes once unused)`
      : p.heldBack
        ? ` (${p.heldBack})`
        : ''
  }`;

export const planUsage = `usage: capi-serverless plan -f <file-or-dir> [-f …] [-o yaml|json] [--diff] [--kubeconfig <file>]

Reads ClusterClasses, templates, Clusters (and optionally the objects that exist now) and prints what one topology
pass would produce: every object the topology manages, created, updated or unchanged (a cloned template whose spec
changes is rotated: cloned under a new name, the reference switched, the old one replaced). Reads no cluster unless
--kubeconfig is given.

Runtime Extensions (external patches, ValidateTopology, DiscoverVariables) are called as a pass calls them: an
ExtensionConfig in the input files is discovered by calling its extension; with --kubeconfig, the cluster's
ExtensionConfigs are used as discovered there (an input ExtensionConfig of the same name wins). An extension that
cannot be reached fails the plan, naming the patch, the extension handler and the hook; with failurePolicy Ignore
it is a warning and the plan goes on without its answer, as the pass would.

options:
  -f, --file <file-or-dir>  a manifest (YAML or JSON, several documents allowed) or a directory of them; repeatable
  -o, --output yaml|json    the objects as YAML documents (default) or one JSON List
  --diff                    a line diff against the objects given as existing, instead of the objects
  --kubeconfig <file>       read the ExtensionConfigs (and Namespaces) of this cluster; nothing is written to it
  -h, --help                this text
`;

/** Runs `plan`; returns the exit code. */
export async function runPlan(argv: readonly string[], io: Streams): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(`${planUsage}\n${fleetPlanUsage}`);
    return 0;
  }
  if (argv.some((a) => (fleetFlags as readonly string[]).includes(a))) return runFleetPlan(argv, io);
  let close: () => void = () => undefined;
  try {
    const args = parsePlanArgs(argv);
    const manifests = readManifests(args.files);
    const given = manifests.filter((input) => !isExtensionConfig(input));
    // NOTE: a cluster to read and no Cluster in the files: the files are a change to forecast for that cluster's fleet.
    if (args.kubeconfig !== undefined && !given.some((input) => input.object.kind === 'Cluster'))
      return await runFleetPlan(argv, io);
    const outputVersion = args.outputVersion ?? computeInputVersion(given);
    const inputs = convertInputsToHub(given);
    const warnings = new Set<string>();
    const extensions = await getPlanRuntime(manifests, { kubeconfig: args.kubeconfig }, (w) => warnings.add(w));
    close = extensions.close;
    const computed = await computePlan(inputs, { randomSuffix: deterministicSuffix(), runtime: extensions.runtime });
    const plan = { ...computed, objects: convertPlan(computed.objects, outputVersion, computeInputApiVersions(given)) };
    for (const warning of [...warnings, ...plan.warnings]) io.stderr.write(`warning: ${warning}\n`);
    for (const upgrade of plan.upgrades) io.stderr.write(`${describeUpgrade(upgrade)}\n`);
    if (args.diff) {
      for (const p of plan.objects) {
        io.stdout.write(`# ${describe(p)}: ${p.operation}\n`);
        if (p.operation === 'unchanged' || p.operation === 'replaced') continue;
        io.stdout.write(computeLineDiff(p.current ? stringify(p.current) : '', stringify(p.object)) + '\n');
      }
      return 0;
    }
    // NOTE: a replaced template is not part of the topology after the pass; only the summary names it.
    const written = plan.objects.filter((p) => p.operation !== 'replaced');
    if (args.output === 'json') {
      io.stdout.write(
        JSON.stringify({ apiVersion: 'v1', kind: 'List', items: written.map((p) => p.object) }, null, 2) + '\n',
      );
    } else {
      io.stdout.write(
        written.map((p) => `# ${describe(p)}: ${p.operation}\n${stringify(p.object, { lineWidth: 0 })}`).join('---\n'),
      );
    }
    io.stderr.write(plan.objects.map((p) => `${p.operation.padEnd(9)} ${describe(p)}`).join('\n') + '\n');
    return 0;
  } catch (err) {
    io.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  } finally {
    close();
  }
}
