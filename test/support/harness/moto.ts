// A real EventBridge Scheduler API for integration tests: moto's server (PyPI, installed once by install-moto.sh) on a
// free loopback port; with `cloudFormation`, started through moto-server.py (two fixes to its CloudFormation emulation
// that `cdk deploy` of the stack needs) for test/integration/deploy/. It keeps schedules and groups and answers Create/Get/Update/Delete/ListSchedules and the group
// calls as AWS does (ConflictException, ResourceNotFoundException); it never fires a schedule, so a test that needs
// one to fire reads it back and invokes its target itself (`fireDueSchedules`).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateScheduleGroupCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { getFreePort } from './ports.ts';
import { probeHttp, startHarnessProcess, waitForProcesses } from './processes.ts';

export type MotoServer = {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly region: string;
  /** A Scheduler client on this server (any credentials: moto does not check signatures). */
  createSchedulerClient(): SchedulerClient;
  stop(): Promise<void>;
};

const harnessDir = dirname(fileURLToPath(import.meta.url));
const installScript = join(harnessDir, 'install-moto.sh');
const credentials = { accessKeyId: 'capiserverless', secretAccessKey: 'local' };

/** Installs moto (once) and returns the moto_server executable. */
export function installMoto(): string {
  const out = spawnSync('bash', [installScript], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (out.status !== 0) throw new Error(`install-moto.sh failed (exit ${out.status})`);
  const server = out.stdout.trim().split('\n').at(-1);
  if (!server) throw new Error('install-moto.sh printed no server path');
  return server;
}

/**
 * Starts moto's server on 127.0.0.1 and waits until it answers.
 *
 * @example
 * const moto = await startMoto();
 * after(() => moto.stop());
 * const scheduler = moto.createSchedulerClient();
 */
export async function startMoto(
  opts: { readonly region?: string; readonly cloudFormation?: boolean } = {},
): Promise<MotoServer> {
  const bin = installMoto();
  const region = opts.region ?? 'us-east-1';
  const port = await getFreePort();
  const args = ['-H', '127.0.0.1', '-p', String(port)];
  // NOTE: the virtualenv's python runs moto's server with the fixes in moto-server.py.
  const proc = opts.cloudFormation
    ? startHarnessProcess('moto', join(dirname(bin), 'python'), [join(harnessDir, 'moto-server.py'), ...args])
    : startHarnessProcess('moto', bin, args);
  const endpoint = `http://127.0.0.1:${port}`;
  await waitForProcesses('moto', async () => (await probeHttp(`${endpoint}/moto-api/`)) > 0, [proc], 120_000);
  return {
    endpoint,
    region,
    createSchedulerClient: () => new SchedulerClient({ endpoint, region, credentials, maxAttempts: 1 }),
    stop: () => proc.stop(),
  };
}

/** Creates a schedule group (what the stack's `AWS::Scheduler::ScheduleGroup` does on AWS). */
export async function createScheduleGroup(client: SchedulerClient, name: string): Promise<void> {
  await client.send(new CreateScheduleGroupCommand({ Name: name }));
}

/** A one-time schedule as stored: its name, due time (from `at(...)`, UTC), target ARN and input. */
export type StoredSchedule = {
  readonly name: string;
  readonly expression: string;
  readonly targetArn: string;
  readonly input: string;
  readonly actionAfterCompletion: string | undefined;
};

/** Every schedule of a group, read back in full (ListSchedules, then GetSchedule each). */
export async function getSchedules(client: SchedulerClient, groupName: string): Promise<StoredSchedule[]> {
  const listed = await client.send(new ListSchedulesCommand({ GroupName: groupName }));
  const schedules: StoredSchedule[] = [];
  for (const s of listed.Schedules ?? []) {
    const got = await client.send(new GetScheduleCommand({ GroupName: groupName, Name: s.Name }));
    schedules.push({
      name: got.Name ?? '',
      expression: got.ScheduleExpression ?? '',
      targetArn: got.Target?.Arn ?? '',
      input: got.Target?.Input ?? '',
      actionAfterCompletion: got.ActionAfterCompletion,
    });
  }
  return schedules.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * What EventBridge Scheduler does when a one-time schedule's time comes, done by the test: substitutes the context
 * attributes in the target's input (`<aws.scheduler.execution-id>`, `<aws.scheduler.scheduled-time>`), deletes the
 * schedule (`ActionAfterCompletion: DELETE`: a Lambda target is invoked asynchronously, so the schedule has completed
 * before the function runs), then hands the parsed input to `invoke` (the function's handler).
 *
 * @example
 * await fireSchedule(client, group, schedule, (event) => handler(event, context));
 */
export async function fireSchedule<T>(
  client: SchedulerClient,
  groupName: string,
  schedule: StoredSchedule,
  scheduledTime: Date,
  invoke: (event: unknown) => Promise<T>,
): Promise<T> {
  const input = schedule.input
    .replaceAll('<aws.scheduler.execution-id>', `moto-${schedule.name}-${scheduledTime.getTime()}`)
    .replaceAll('<aws.scheduler.scheduled-time>', scheduledTime.toISOString());
  if (schedule.actionAfterCompletion === 'DELETE')
    await client.send(new DeleteScheduleCommand({ GroupName: groupName, Name: schedule.name }));
  return invoke(JSON.parse(input));
}
