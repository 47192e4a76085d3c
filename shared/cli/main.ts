// Entry point of the `capi-serverless` CLI: `--version`, `--help` for the CLI and for every subcommand (answered here,
// before a subcommand runs, so each gets it the same way), and the subcommands.
import { readFileSync } from 'node:fs';
import { runCost } from '#shared/cli/cost.ts';
import { planUsage, runPlan } from '#shared/cli/plan.ts';

type Io = { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown } };

/** Each subcommand: its summary (in the CLI's usage), its help (`<command> --help`) and what runs it. */
const commands = {
  plan: {
    usage: `plan -f <file-or-dir> [-f …] [-o yaml|json] [--diff] [--kubeconfig <file>]
    Reads ClusterClasses, templates, Clusters (and optionally the objects that exist now) and prints what one
    topology pass would produce: every object the topology manages, created, updated or unchanged. Calls the
    Runtime Extensions of external patches (ExtensionConfigs from -f, or from the cluster with --kubeconfig).`,
    help: planUsage,
    run: runPlan,
  },
  cost: {
    usage: `cost [--clusters 100,1000,10000] [--mix variable=1,scale=2,upgrade=1,crs=1,class=2,create=0.1]
       [--variant public|private|both] [--user-type operator|clusterctl|both] [--prices prices.json]
       [-o table|json|markdown]
    Prints every line of the marginal monthly cost of capi-serverless against the upstream controllers it
    replaces: the stack's synthesized template priced with the side-by-side bench's measured per-change profile
    and the change mix (changes per Cluster per month; types not named are 0; a fleet-wide change counts once per
    Cluster it reaches). A is priced for a user with the Cluster API Operator and one who used clusterctl.`,
    help: undefined,
    run: runCost,
  },
} as const satisfies Record<
  string,
  { usage: string; help: string | undefined; run: (argv: string[], io: Io) => number | Promise<number> }
>;

const helpOf = (c: { usage: string; help: string | undefined }) => c.help ?? `usage: capi-serverless ${c.usage}\n`;

const usage = `usage: capi-serverless <command> [options]
       capi-serverless <command> --help
       capi-serverless --version

commands:
${Object.values(commands)
  .map((c) => `  ${c.usage}`)
  .join('\n')}
`;

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';

/** The version of the installed package (package.json next to shared/). */
export function getVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * Runs the CLI; resolves with the exit code.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: readonly string[], io: Io = process): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v' || command === 'version') {
    io.stdout.write(`capi-serverless ${getVersion()}\n`);
    return 0;
  }
  if (command === undefined || isHelp(command) || command === 'help') {
    const topic = command === 'help' ? rest[0] : undefined;
    const known =
      topic !== undefined && Object.hasOwn(commands, topic) ? commands[topic as keyof typeof commands] : undefined;
    (command === undefined ? io.stderr : io.stdout).write(known ? helpOf(known) : usage);
    return command === undefined ? 2 : 0;
  }
  if (!Object.hasOwn(commands, command)) {
    io.stderr.write(`unknown command ${JSON.stringify(command)}\n\n${usage}`);
    return 2;
  }
  const sub = commands[command as keyof typeof commands];
  if (rest.some(isHelp)) {
    io.stdout.write(helpOf(sub));
    return 0;
  }
  return sub.run(rest, io);
}
