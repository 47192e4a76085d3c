// `capi-serverless plan` for a fleet: read the Clusters and their objects (from a cluster with --kubeconfig, or from
// files with --current), apply a change in memory (new ClusterClasses/templates with -f, --version, --rebase-to) and
// print what it does to every Cluster it reaches. Reads only: GETs and LISTs, never a write.
import { createKubeClient } from '#shared/kube/index.ts';
import { CapiError } from '#shared/errors/index.ts';
import { formatFleetForecastJson, formatFleetForecastText } from '#shared/cli/format-fleet-forecast.ts';
import { getPlanRuntime, isExtensionConfig } from '#shared/cli/plan-extensions.ts';
import { convertInputsToHub } from '#shared/cli/plan-versions.ts';
import { deterministicSuffix, readManifests } from '#shared/cli/plan-inputs.ts';
import { parseLabelSelector } from '#shared/providers/desired/label-selector.ts';
import { computeDefaultedVersion } from '#shared/webhooks/rules/cluster-rules.ts';
import { computeFleetForecast, type FleetChange } from '#shared/cli/plan/compute-fleet-forecast.ts';
import { getFleetObjects } from '#shared/cli/plan/current/get-fleet-objects.ts';
import type { SourcedObject } from '#shared/cli/plan/compute-plan.ts';

type Streams = { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown } };

export type FleetPlanArgs = {
  files: string[];
  current: string[];
  kubeconfig?: string;
  version?: string;
  rebaseTo?: { name: string; namespace?: string };
  namespace?: string;
  selector?: string;
  output: 'text' | 'json';
  progressEvery: number;
  concurrency: number;
};

/** Flags only a fleet plan has: any of them makes `plan` a fleet plan. */
export const fleetFlags = ['--current', '--version', '--rebase-to', '-l', '--selector', '-n', '--namespace'] as const;

const positive = (flag: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CapiError(`${flag} needs a positive integer, got ${JSON.stringify(v)}`);
  return n;
};

export function parseFleetPlanArgs(argv: readonly string[]): FleetPlanArgs {
  const args: FleetPlanArgs = { files: [], current: [], output: 'text', progressEvery: 50, concurrency: 8 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v === '') throw new CapiError(`${a} needs a value`);
      return v;
    };
    if (a === '-f' || a === '--file') args.files.push(value());
    else if (a === '--current') args.current.push(value());
    else if (a === '--kubeconfig') args.kubeconfig = value();
    else if (a === '--version') args.version = computeDefaultedVersion(value());
    else if (a === '--rebase-to') {
      const [first, second] = value().split('/');
      args.rebaseTo = second === undefined ? { name: first ?? '' } : { namespace: first ?? '', name: second };
    } else if (a === '-n' || a === '--namespace') args.namespace = value();
    else if (a === '-l' || a === '--selector') args.selector = value();
    else if (a === '-o' || a === '--output') {
      const v = value();
      if (v !== 'text' && v !== 'json')
        throw new CapiError(`-o of a fleet plan must be text or json, got ${JSON.stringify(v)}`);
      args.output = v;
    } else if (a === '--progress-every') args.progressEvery = positive(a, argv[++i]);
    else if (a === '--concurrency') args.concurrency = positive(a, argv[++i]);
    else throw new CapiError(`unknown argument ${JSON.stringify(a)}`);
  }
  if (args.kubeconfig === undefined && args.current.length === 0)
    throw new CapiError('a fleet plan reads the fleet from a cluster (--kubeconfig) or from files (--current)');
  if (args.kubeconfig !== undefined && args.current.length > 0)
    throw new CapiError('give the fleet with --kubeconfig or with --current, not both');
  if (args.files.length === 0 && args.version === undefined && args.rebaseTo === undefined)
    throw new CapiError('nothing to forecast: give changed ClusterClasses or templates (-f), --version or --rebase-to');
  return args;
}

export const fleetPlanUsage = `usage: capi-serverless plan (--kubeconfig <file> | --current <file-or-dir> …) [-f <file-or-dir> …]
       [--version <v>] [--rebase-to [<namespace>/]<class>] [-n <namespace>] [-l <selector>] [-o text|json]
       [--progress-every <n>] [--concurrency <n>]

Forecasts a change for a fleet: for every Cluster it reaches, the objects changed in place, the templates rotated and
the Machines each rollout replaces (control plane, each MachineDeployment and MachinePool, from the live replicas),
then one summary line. -f gives new ClusterClasses or templates (they reach the Clusters of a changed class or of a
class using a changed template); --version and --rebase-to change every selected Cluster, checked first by upstream's
Cluster webhook rules. Reads only (GETs and LISTs); exits 1 when a Cluster fails validation.

options:
  --kubeconfig <file>         read the fleet from this cluster
  --current <file-or-dir>     read the fleet from files (kubectl get -o yaml output); repeatable
  -f, --file <file-or-dir>    new or changed ClusterClasses and templates; repeatable
  --version <v>               the topology version to forecast for the selected Clusters
  --rebase-to [<ns>/]<class>  the ClusterClass to rebase the selected Clusters to
  -n, --namespace <ns>        only Clusters of this namespace (default: all)
  -l, --selector <selector>   only Clusters with these labels (e.g. env=prod,tier!=canary)
  -o, --output text|json      a block per Cluster and a summary line (default), or one JSON document
  --progress-every <n>        a progress line on stderr every n Clusters (default 50)
  --concurrency <n>           LISTs and Cluster plans at once (default 8)
`;

/** Runs a fleet `plan`; returns the exit code (1 when a Cluster fails validation or the plan cannot run). */
export async function runFleetPlan(argv: readonly string[], io: Streams): Promise<number> {
  let close: () => void = () => undefined;
  try {
    const args = parseFleetPlanArgs(argv);
    const changeManifests = args.files.length > 0 ? readManifests(args.files) : [];
    let fleet: SourcedObject[];
    if (args.kubeconfig !== undefined) {
      const kube = await createKubeClient({ kubeconfigPath: args.kubeconfig }, { userAgent: 'capi-serverless/plan' });
      try {
        fleet = await getFleetObjects(kube, {
          namespace: args.namespace,
          machines: args.version !== undefined,
          concurrency: args.concurrency,
          onRead: (kind, count) => io.stderr.write(`read ${count} ${kind}\n`),
        });
      } finally {
        kube.close();
      }
    } else fleet = readManifests(args.current);
    const warnings = new Set<string>();
    const extensions = await getPlanRuntime(
      [...changeManifests, ...fleet].filter(isExtensionConfig),
      { kubeconfig: args.kubeconfig },
      (w) => warnings.add(w),
    );
    close = extensions.close;
    const change: FleetChange = {
      objects: convertInputsToHub(changeManifests.filter((m) => !isExtensionConfig(m))),
      version: args.version,
      rebaseTo: args.rebaseTo,
      namespace: args.namespace,
      selector: args.selector === undefined ? undefined : parseLabelSelector(args.selector),
    };
    const forecast = await computeFleetForecast(
      convertInputsToHub(fleet.filter((m) => !isExtensionConfig(m))),
      change,
      {
        randomSuffixFor: deterministicSuffix,
        runtime: extensions.runtime,
        concurrency: args.concurrency,
        onPlanned: (done, total) => {
          if (done % args.progressEvery === 0 || (done === total && total >= args.progressEvery))
            io.stderr.write(`planned ${done}/${total} Clusters\n`);
        },
      },
    );
    for (const warning of warnings) io.stderr.write(`warning: ${warning}\n`);
    io.stdout.write(
      args.output === 'json'
        ? formatFleetForecastJson(forecast, {
            objects: change.objects
              .map((o) => ({
                kind: o.object.kind,
                namespace: o.object.metadata.namespace ?? '',
                name: o.object.metadata.name ?? '',
              }))
              .sort((a, b) => `${a.kind}/${a.namespace}/${a.name}`.localeCompare(`${b.kind}/${b.namespace}/${b.name}`)),
            version: args.version,
            rebaseTo: args.rebaseTo
              ? `${args.rebaseTo.namespace ? `${args.rebaseTo.namespace}/` : ''}${args.rebaseTo.name}`
              : undefined,
            namespace: args.namespace,
            selector: args.selector,
          })
        : formatFleetForecastText(forecast),
    );
    return forecast.summary.invalid > 0 ? 1 : 0;
  } catch (err) {
    io.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  } finally {
    close();
  }
}
