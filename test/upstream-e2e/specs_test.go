package upstreame2e

import (
	. "github.com/onsi/ginkgo/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlcluster "sigs.k8s.io/cluster-api/cmd/clusterctl/client/cluster"
	"sigs.k8s.io/cluster-api/test/e2e"
	"sigs.k8s.io/cluster-api/test/framework"
)

// Each Describe calls one of upstream's exported spec functions with the inputs upstream's own *_test.go gives it
// (test/e2e in sigs.k8s.io/cluster-api/test v1.14.2), with two changes that follow from the existing cluster:
//   - InfrastructureProvider names the version ("docker:v1.14.2"): no clusterctl inventory records what is installed,
//     so clusterctl cannot look the version up;
//   - QuickStartSpec gets the in-memory topology flavor and the test extension's Service, as the ClusterClass specs
//     have upstream (upstream runs QuickStart in-memory only through the scale spec).

var infrastructureProvider = ptr.To("docker:v1.14.2")

const (
	// Where upstream's e2e deploys its test extension; run.ts puts the harness's extension behind this Service.
	extensionServiceNamespace = "test-extension-system"
	extensionServiceName      = "test-extension-webhook-service"
)

var _ = Describe("QuickStartSpec, in-memory topology flavor", Label("quick-start"), func() {
	e2e.QuickStartSpec(ctx, func() e2e.QuickStartSpecInput {
		return e2e.QuickStartSpecInput{
			E2EConfig:                 e2eConfig,
			ClusterctlConfigPath:      clusterctlConfigPath,
			BootstrapClusterProxy:     bootstrapClusterProxy,
			ArtifactFolder:            artifactFolder,
			SkipCleanup:               skipCleanup,
			InfrastructureProvider:    infrastructureProvider,
			Flavor:                    ptr.To("in-memory-topology"),
			ExtensionServiceNamespace: extensionServiceNamespace,
			ExtensionServiceName:      extensionServiceName,
		}
	})
})

var _ = Describe("ClusterClassChangesSpec", Label("clusterclass-changes"), func() {
	e2e.ClusterClassChangesSpec(ctx, func() e2e.ClusterClassChangesSpecInput {
		return e2e.ClusterClassChangesSpecInput{
			E2EConfig:                 e2eConfig,
			ClusterctlConfigPath:      clusterctlConfigPath,
			BootstrapClusterProxy:     bootstrapClusterProxy,
			ArtifactFolder:            artifactFolder,
			SkipCleanup:               skipCleanup,
			InfrastructureProvider:    infrastructureProvider,
			Flavor:                    "in-memory-topology",
			ExtensionServiceNamespace: extensionServiceNamespace,
			ExtensionServiceName:      extensionServiceName,
			ModifyControlPlaneFields: map[string]interface{}{
				"spec.kubeadmConfigSpec.verbosity": int64(4),
			},
			ModifyMachineDeploymentBootstrapConfigTemplateFields: map[string]interface{}{
				"spec.template.spec.verbosity": int64(4),
			},
			ModifyMachineDeploymentInfrastructureMachineTemplateFields: map[string]interface{}{
				"spec.template.spec.backend.inMemory.vm.provisioning.startupDuration": "15s",
			},
		}
	})
})

var _ = Describe("ClusterClassRolloutSpec", Label("clusterclass-rollout"), func() {
	e2e.ClusterClassRolloutSpec(ctx, func() e2e.ClusterClassRolloutSpecInput {
		return e2e.ClusterClassRolloutSpecInput{
			E2EConfig:                 e2eConfig,
			ClusterctlConfigPath:      clusterctlConfigPath,
			BootstrapClusterProxy:     bootstrapClusterProxy,
			ArtifactFolder:            artifactFolder,
			SkipCleanup:               skipCleanup,
			InfrastructureProvider:    infrastructureProvider,
			Flavor:                    "in-memory-topology",
			ExtensionServiceNamespace: extensionServiceNamespace,
			ExtensionServiceName:      extensionServiceName,
			FilterMetadataBeforeValidation: func(object client.Object) clusterv1.ObjectMeta {
				annotations := object.GetAnnotations()
				labels := object.GetLabels()
				delete(annotations, "inmemorycluster.infrastructure.cluster.x-k8s.io/listener")
				delete(annotations, "machine.inmemory.infrastructure.cluster.x-k8s.io/bootstrapped")
				delete(labels, "top-level-label-1")
				delete(annotations, "top-level-annotation-1")
				return clusterv1.ObjectMeta{Labels: labels, Annotations: annotations}
			},
		}
	})
})

var _ = Describe("ClusterUpgradeWithRuntimeSDKSpec", Label("runtimesdk-upgrade"), func() {
	e2e.ClusterUpgradeWithRuntimeSDKSpec(ctx, func() e2e.ClusterUpgradeWithRuntimeSDKSpecInput {
		return e2e.ClusterUpgradeWithRuntimeSDKSpecInput{
			E2EConfig:              e2eConfig,
			ClusterctlConfigPath:   clusterctlConfigPath,
			BootstrapClusterProxy:  bootstrapClusterProxy,
			ArtifactFolder:         artifactFolder,
			SkipCleanup:            skipCleanup,
			InfrastructureProvider: infrastructureProvider,
			PostUpgrade: func(proxy framework.ClusterProxy, namespace, clusterName string) {
				spec := "k8s-upgrade-with-runtimesdk"
				framework.ValidateResourceVersionStable(ctx, framework.ValidateResourceVersionStableInput{
					ClusterProxy:             proxy,
					Namespace:                namespace,
					OwnerGraphFilterFunction: clusterctlcluster.FilterClusterObjectsWithNameFilter(clusterName),
					WaitToBecomeStable:       e2eConfig.GetIntervals(spec, "wait-resource-versions-become-stable"),
					WaitToRemainStable:       e2eConfig.GetIntervals(spec, "wait-resource-versions-remain-stable"),
				})
			},
			Flavor:                    ptr.To("in-memory-topology"),
			ExtensionServiceNamespace: extensionServiceNamespace,
			ExtensionServiceName:      extensionServiceName,
		}
	})
})

// In-place updates (upstream v1.12+): the plane runs the core manager with RuntimeSDK and InPlaceUpdates on and the
// kubeadm control plane with InPlaceUpdates on; capi-serverless leaves ExtensionConfig discovery to upstream
// (EXTENSION_CONFIG_DISCOVERY=upstream), run.ts sets both when this label is selected. Inputs as upstream's
// cluster_in_place_update_test.go.
var _ = Describe("ClusterInPlaceUpdateSpec", Label("in-place-update"), func() {
	e2e.ClusterInPlaceUpdateSpec(ctx, func() e2e.ClusterInPlaceUpdateSpecInput {
		return e2e.ClusterInPlaceUpdateSpecInput{
			E2EConfig:                 e2eConfig,
			ClusterctlConfigPath:      clusterctlConfigPath,
			BootstrapClusterProxy:     bootstrapClusterProxy,
			ArtifactFolder:            artifactFolder,
			SkipCleanup:               skipCleanup,
			InfrastructureProvider:    infrastructureProvider,
			Flavor:                    ptr.To("in-memory-topology"),
			ExtensionServiceNamespace: extensionServiceNamespace,
			ExtensionServiceName:      extensionServiceName,
			ClusterctlVariables: map[string]string{
				// As upstream: scale-in on the control plane, MaxUnavailable 1 on the MachineDeployment, so every
				// change can be carried out in place with no Machine re-created.
				"KUBEADM_CONTROL_PLANE_MAX_SURGE": "0",
				"MD_MAX_SURGE":                    "1",
				"MD_MAX_UNAVAILABLE":              "1",
			},
		}
	})
})
