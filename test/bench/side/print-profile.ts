// Prints the measured profile the cost model scales (compute-measured-profile.ts) from the committed bench results;
// with --write, writes it to shared/pricing/measured-profile.ts (prettier-formatted):
//   node --import tsx test/bench/side/print-profile.ts [--write] [--wake-ups=<run that counted them>]
//     [--counts=<later run whose capi-serverless counts replace the side-by-side run's>] [--init=<measure-init result>]
//     [--webhooks=<measure-webhooks result>] [--passes=<measure-passes-rie result>] [--idle=<run with a long idle window>]
//     [side-by-side result] [npm run bench result] [forwarder result]
// Defaults: test/bench/results/side-by-side-100-epyc.json, latest.json, forwarder-floor.json.
import { readFileSync } from 'node:fs';
import { writeFormatted } from '#test/bench/report.ts';
import { computeMeasuredProfile, type ProfileSources } from './compute-measured-profile.ts';

const args = process.argv.slice(2);
const write = args.includes('--write');
// NOTE: --wake-ups=<file>: a run that counted the one-time schedules, when the side-by-side result did not.
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const wakeUpsFile = option('wake-ups');
// NOTE: --counts=<file>: a later run whose capi-serverless counts per change replace the side-by-side run's;
// --init=<file>: test/bench/measure-init.ts's result (INIT and cold invocations in the Lambda runtime emulator).
const countsFile = option('counts');
const initFile = option('init');
// NOTE: --webhooks=<file>: test/bench/measure-webhooks.ts's result (the webhooks function's calls in the emulator).
const webhooksFile = option('webhooks');
// NOTE: --passes=<file>: test/bench/measure-passes-rie.ts's result (topology and addons passes in the emulator).
const passesFile = option('passes');
// NOTE: --idle=<file>: a later run (side B) with a longer idle window whose idle counts replace the side-by-side run's.
const idleFile = option('idle');
const [
  sideFile = 'test/bench/results/side-by-side-100-epyc.json',
  benchFile = 'test/bench/results/latest.json',
  forwarderFile = 'test/bench/results/forwarder-floor.json',
] = args.filter((a) => !a.startsWith('--'));
const read = <T>(file: string) => ({ file, result: JSON.parse(readFileSync(file, 'utf8')) as T });
const profile = computeMeasuredProfile({
  side: read<ProfileSources['side']['result']>(sideFile),
  bench: read<ProfileSources['bench']['result']>(benchFile),
  forwarder: read<ProfileSources['forwarder']['result']>(forwarderFile),
  ...(wakeUpsFile ? { wakeUps: read<ProfileSources['side']['result']>(wakeUpsFile) } : {}),
  ...(countsFile ? { counts: read<ProfileSources['side']['result']>(countsFile) } : {}),
  ...(initFile ? { init: read<NonNullable<ProfileSources['init']>['result']>(initFile) } : {}),
  ...(webhooksFile ? { webhooks: read<NonNullable<ProfileSources['webhooks']>['result']>(webhooksFile) } : {}),
  ...(passesFile ? { passes: read<NonNullable<ProfileSources['passes']>['result']>(passesFile) } : {}),
  ...(idleFile ? { idle: read<ProfileSources['side']['result']>(idleFile) } : {}),
});
const json = JSON.stringify(profile, null, 2);
if (write) {
  const target = new URL('../../../shared/pricing/measured-profile.ts', import.meta.url);
  await writeFormatted(
    target,
    [
      '// The measured usage the cost model scales, generated from the committed bench results by',
      `// \`node --import tsx test/bench/side/print-profile.ts --write ${[
        ...(wakeUpsFile ? [`--wake-ups=${wakeUpsFile}`] : []),
        ...(countsFile ? [`--counts=${countsFile}`] : []),
        ...(initFile ? [`--init=${initFile}`] : []),
        ...(webhooksFile ? [`--webhooks=${webhooksFile}`] : []),
        ...(passesFile ? [`--passes=${passesFile}`] : []),
        ...(idleFile ? [`--idle=${idleFile}`] : []),
      ].join(
        ' ',
      )}${wakeUpsFile || countsFile || initFile || webhooksFile || passesFile || idleFile ? ' ' : ''}${sideFile} ${benchFile} ${forwarderFile}\``,
      '// (generated — do not edit; regenerate after `npm run bench:side`, `npm run bench` or the forwarder bench).',
      "import type { MeasuredProfile } from '#shared/pricing/measured-profile-types.ts';",
      '',
      `export const measuredProfile: MeasuredProfile = ${json};`,
      '',
    ].join('\n'),
  );
  process.stderr.write(`wrote ${target.pathname}\n`);
} else process.stdout.write(`${json}\n`);
