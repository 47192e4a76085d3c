// Entry point of the `capi-serverless` CLI.
import { runCost } from '#shared/cli/cost.ts';
import { runPlan } from '#shared/cli/plan.ts';

const usage = `usage: capi-serverless <command>

commands:
  plan -f <file-or-dir> [-f …] [-o yaml|json] [--diff] [--kubeconfig <file>]
      Reads ClusterClasses, templates, Clusters (and optionally the objects that exist now) and prints what one
      topology pass would produce: every object the topology manages, created, updated or unchanged. Calls the
      Runtime Extensions of external patches (ExtensionConfigs from -f, or from the cluster with --kubeconfig).
  cost [--clusters 100,1000,10000] [--mix variable=1,scale=2,upgrade=1,crs=1,class=2,create=0.1]
       [--variant public|private|both] [--user-type operator|clusterctl|both] [--prices prices.json]
       [-o table|json|markdown]
      Prints every line of the marginal monthly cost of capi-serverless against the upstream controllers it
      replaces: the stack's synthesized template priced with the side-by-side bench's measured per-change profile
      and the change mix (changes per Cluster per month; types not named are 0; a fleet-wide change counts once per
      Cluster it reaches). A is priced for a user with the Cluster API Operator and one who used clusterctl.
`;

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'plan') return runPlan(rest, { stdout: process.stdout, stderr: process.stderr });
  if (command === 'cost') return runCost(rest, { stdout: process.stdout, stderr: process.stderr });
  process.stderr.write(
    command && command !== '--help' && command !== '-h'
      ? `unknown command ${JSON.stringify(command)}\n\n${usage}`
      : usage,
  );
  return command === '--help' || command === '-h' ? 0 : 2;
}
