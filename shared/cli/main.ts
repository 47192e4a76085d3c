// Entry point of the `capi-serverless` CLI.
import { runCost } from '#shared/cli/cost.ts';
import { runPlan } from '#shared/cli/plan.ts';

const usage = `usage: capi-serverless <command>

commands:
  plan -f <file-or-dir> [-f …] [-o yaml|json] [--diff] [--kubeconfig <file>]
      Reads ClusterClasses, templates, Clusters (and optionally the objects that exist now) and prints what one
      topology pass would produce: every object the topology manages, created, updated or unchanged. Calls the
      Runtime Extensions of external patches (ExtensionConfigs from -f, or from the cluster with --kubeconfig).
  cost [--clusters 100,1000,10000] [--changes-per-cluster 10] [--network public|vpc-private|vpc-nat|vpc-endpoints]
       [--prices prices.json] [-o table|json]
      Prints the marginal monthly cost of capi-serverless against upstream's controllers it replaces, scaled from
      the side-by-side bench's measured profile (docs/cost.md); a prices file overrides list prices.
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
