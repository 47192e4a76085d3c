// Upstream's own cases (exp/topology/desiredstate/upgrade_plan_test.go, v1.14.0, extracted into
// test/support/fixtures/topology/upgrade-plan-cases.json by test/support/golden/upgrade-plan/extract.mjs) run against the pure plan
// computation. Parse errors come from another semver library: their text after the version differs, so only the
// part upstream writes itself is compared.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { MachineDeployment } from '#shared/api/core/v1beta2/machine-deployment.ts';
import type { MachinePool } from '#shared/api/core/v1beta2/machine-pool.ts';
import {
  computeUpgradePlan,
  computeUpgradePlanSource,
  getUpgradePlanFromClusterClassVersions,
  getUpgradePlanOneMinor,
  UpgradePlanError,
} from '#shared/topology/desired/compute-upgrade-plan.ts';
import type { CurrentState } from '#shared/topology/types.ts';
import { ClusterBuilder, ClusterClassBuilder, deepFreeze } from '#test/support/builders/topology.ts';

type Plan = string[] | null;
type Cases = {
  computeUpgradePlan: {
    name: string;
    topologyVersion: string;
    controlPlaneVersion: string;
    machineDeploymentVersion: string;
    machinePoolVersion: string;
    plan: { controlPlane: Plan; workers: Plan } | null;
    wantControlPlaneUpgradePlan: Plan;
    wantMachineDeploymentUpgradePlan: Plan;
    wantMachinePoolUpgradePlan: Plan;
    wantErr: boolean;
    wantErrMessage: string;
  }[];
  oneMinor: {
    name: string;
    desiredVersion: string;
    currentControlPlaneVersion: string;
    wantControlPlaneUpgradePlan: Plan;
    wantErr: boolean;
  }[];
  fromClusterClassVersions: {
    name: string;
    clusterClassVersions: string[];
    desiredVersion: string;
    currentControlPlaneVersion: string;
    wantControlPlaneUpgradePlan: Plan;
    wantErr: boolean;
  }[];
};
const cases = JSON.parse(
  readFileSync(new URL('../../../support/fixtures/topology/upgrade-plan-cases.json', import.meta.url), 'utf8'),
) as Cases;

const cluster = new ClusterBuilder().build();

function currentOf(c: Cases['computeUpgradePlan'][number]): CurrentState {
  const md = (version: string) =>
    ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      metadata: { namespace: 'test1', name: 'md1' },
      spec: { clusterName: 'c1', template: { spec: { clusterName: 'c1', version } } },
    }) as unknown as MachineDeployment;
  return deepFreeze({
    cluster,
    controlPlane: {
      object:
        c.controlPlaneVersion === ''
          ? undefined
          : {
              apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
              kind: 'KubeadmControlPlane',
              metadata: { namespace: 'test1', name: 'cp1' },
              spec: { version: c.controlPlaneVersion },
            },
    },
    machineDeployments: c.machineDeploymentVersion === '' ? {} : { md1: { object: md(c.machineDeploymentVersion) } },
    machinePools:
      c.machinePoolVersion === ''
        ? {}
        : { mp1: { object: { ...md(c.machinePoolVersion), kind: 'MachinePool' } as unknown as MachinePool } },
  });
}

/** The part of an error message upstream writes itself (a parse error's library text is cut off). */
function ownPart(message: string): string {
  const parse = /^(.*failed to parse (?:[\w ]+ )?version \S+):/.exec(message);
  return parse?.[1] ?? message;
}

describe("upgrade plans: upstream's TestComputeUpgradePlan cases", () => {
  for (const c of cases.computeUpgradePlan) {
    test(c.name, () => {
      const plan = c.plan;
      const generated = plan ? { controlPlane: plan.controlPlane ?? [], workers: plan.workers ?? [] } : undefined;
      const run = () =>
        computeUpgradePlan(c.topologyVersion, currentOf(c), { kind: 'Extension', name: 'upstream-case' }, generated);
      if (c.wantErr) {
        assert.throws(run, (err: unknown) => {
          assert.ok(err instanceof UpgradePlanError, String(err));
          assert.equal(ownPart(err.message), ownPart(c.wantErrMessage));
          return true;
        });
        return;
      }
      const got = run();
      assert.deepEqual(got.controlPlane, c.wantControlPlaneUpgradePlan ?? []);
      assert.deepEqual(got.machineDeployments, c.wantMachineDeploymentUpgradePlan ?? []);
      assert.deepEqual(got.machinePools, c.wantMachinePoolUpgradePlan ?? []);
    });
  }
});

describe("upgrade plans: upstream's TestGetUpgradePlanOneMinor cases", () => {
  for (const c of cases.oneMinor) {
    test(c.name, () => {
      const request = {
        desiredVersion: c.desiredVersion,
        controlPlaneVersion: c.currentControlPlaneVersion,
        minWorkersVersion: '',
      };
      if (c.wantErr) {
        assert.throws(() => getUpgradePlanOneMinor(request), UpgradePlanError);
        return;
      }
      assert.deepEqual(getUpgradePlanOneMinor(request), {
        controlPlane: c.wantControlPlaneUpgradePlan ?? [],
        workers: [],
      });
    });
  }
});

describe("upgrade plans: upstream's TestGetUpgradePlanFromClusterClassVersions cases", () => {
  for (const c of cases.fromClusterClassVersions) {
    test(`${c.name} (${c.currentControlPlaneVersion} → ${c.desiredVersion})`, () => {
      const request = {
        desiredVersion: c.desiredVersion,
        controlPlaneVersion: c.currentControlPlaneVersion,
        minWorkersVersion: '',
      };
      const got = getUpgradePlanFromClusterClassVersions(deepFreeze([...c.clusterClassVersions]), request);
      assert.deepEqual(got, { controlPlane: c.wantControlPlaneUpgradePlan ?? [], workers: [] });
    });
  }
});

describe('upgrade plan source', () => {
  test('an extension wins over the list of versions, as upstream', () => {
    const cc = new ClusterClassBuilder().build();
    const both = {
      ...cc,
      spec: {
        ...cc.spec,
        kubernetesVersions: ['v1.30.0', 'v1.31.0'],
        upgrade: { external: { generateUpgradePlanExtension: 'plan.ext' } },
      },
    };
    assert.deepEqual(computeUpgradePlanSource(both), { kind: 'Extension', name: 'plan.ext' });
    assert.deepEqual(computeUpgradePlanSource({ ...both, spec: { ...both.spec, upgrade: undefined } }), {
      kind: 'KubernetesVersions',
      versions: ['v1.30.0', 'v1.31.0'],
    });
    assert.deepEqual(computeUpgradePlanSource(cc), { kind: 'OneMinor' });
  });

  test('the one-minor default refuses a two-minor jump with upstream message', () => {
    const c = cases.computeUpgradePlan[0];
    assert.ok(c);
    const current = currentOf({ ...c, controlPlaneVersion: 'v1.31.0', machineDeploymentVersion: 'v1.31.0' });
    assert.throws(() => computeUpgradePlan('v1.33.0', current, { kind: 'OneMinor' }), {
      message: 'cannot compute an upgrade plan from v1.31.0 to v1.33.0',
    });
  });
});
