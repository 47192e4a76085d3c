// Load: the contract of the chosen version from metadata.yaml's release series; a version outside every series, or
// a contract this operator does not support, is refused.
import { computeMetadataContract, parseMetadataYaml } from '#shared/providers/desired/compute-metadata-contract.ts';
import { ConditionReason, ProviderCondition } from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';

export const loadPhase: Phase = {
  name: 'load',
  condition: ProviderCondition.ProviderInstalled,
  reason: ConditionReason.CAPIVersionIncompatibility,
  run(pass) {
    if (pass.cached) return Promise.resolve(undefined);
    const release = pass.release;
    if (!release) throw new Error('load phase needs the fetch phase');
    const p = pass.provider;
    const metadata = parseMetadataYaml(release.metadataYaml, `metadata.yaml of ${release.source}`);
    pass.newContract = computeMetadataContract(metadata, release.version, {
      kind: p.kind,
      name: p.metadata.name ?? '',
      ...(p.metadata.namespace ? { namespace: p.metadata.namespace } : {}),
    });
    return Promise.resolve(undefined);
  },
};
