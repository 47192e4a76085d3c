// The suite file for upstream Cluster API v1.14.2's topology controller tests
// (core/reconcilers/topology/cluster/cluster_controller_test.go) pointed at capi-serverless.
//
// build.sh copies the published sigs.k8s.io/cluster-api module from the Go module cache into a scratch folder (its
// test files import the module's internal packages, so they can only compile inside it), drops that package's own test
// files but cluster_controller_test.go, and puts this file in their place. It provides what the upstream file expects
// from its package's suite (ctx, fakeScheme, env) with USE_EXISTING_CLUSTER-style wiring: env talks to the API server
// named by KUBECONFIG (the harness's kube-apiserver, where capi-serverless does topology beside upstream's managers in
// the handoff configuration). Unlike upstream's suite it starts no topology or ClusterClass reconciler, no webhook
// server and no envtest control plane: the manager only serves env's cache and clients.
//
// ENVTEST_BLACKBOX_INSTALL_CRDS=true: apply the test provider CRDs upstream's envtest installs (util/test/builder's
// Generic* and Test* kinds) and exit without running tests (run.ts does this before starting capi-serverless, so its
// forwarder sees the kinds).
package cluster

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/core/setup"
	"sigs.k8s.io/cluster-api/internal/test/envtest"
	"sigs.k8s.io/cluster-api/util/test/builder"
)

var (
	ctx        = ctrl.SetupSignalHandler()
	fakeScheme = runtime.NewScheme()
	env        *envtest.Environment
)

func init() {
	_ = clientgoscheme.AddToScheme(fakeScheme)
	_ = clusterv1.AddToScheme(fakeScheme)
	_ = apiextensionsv1.AddToScheme(fakeScheme)
	_ = corev1.AddToScheme(fakeScheme)
}

// testProviderCRDs are the CRDs upstream's internal/test/envtest installs besides Cluster API's own.
func testProviderCRDs() []*apiextensionsv1.CustomResourceDefinition {
	return []*apiextensionsv1.CustomResourceDefinition{
		builder.GenericBootstrapConfigCRD, builder.GenericBootstrapConfigTemplateCRD,
		builder.GenericControlPlaneCRD, builder.GenericControlPlaneTemplateCRD,
		builder.GenericInfrastructureMachineCRD, builder.GenericInfrastructureMachineTemplateCRD,
		builder.GenericInfrastructureMachinePoolCRD, builder.GenericInfrastructureMachinePoolTemplateCRD,
		builder.GenericInfrastructureClusterCRD, builder.GenericInfrastructureClusterTemplateCRD,
		builder.GenericRemediationCRD, builder.GenericRemediationTemplateCRD,
		builder.TestInfrastructureClusterTemplateCRD, builder.TestInfrastructureClusterCRD,
		builder.TestInfrastructureMachineTemplateCRD, builder.TestInfrastructureMachinePoolCRD,
		builder.TestInfrastructureMachinePoolTemplateCRD, builder.TestInfrastructureMachineCRD,
		builder.TestBootstrapConfigTemplateCRD, builder.TestBootstrapConfigCRD,
		builder.TestControlPlaneTemplateCRD, builder.TestControlPlaneCRD,
	}
}

// installTestProviderCRDs server-side applies the CRDs and waits until each is Established.
func installTestProviderCRDs(c client.Client) error {
	for _, crd := range testProviderCRDs() {
		obj := crd.DeepCopy()
		obj.ResourceVersion = ""
		obj.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
		if err := c.Patch(ctx, obj, client.Apply, client.FieldOwner("upstream-envtest"), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying CRD %s: %w", crd.Name, err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, crd := range testProviderCRDs() {
		for {
			got := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, got); err != nil {
				return err
			}
			established := false
			for _, cond := range got.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					established = true
				}
			}
			if established {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("CRD %s not Established after 30 s", crd.Name)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// upstreamTimeout is a test's own Eventually timeout (build.sh wraps each `timeout := N * time.Second` of the upstream
// file in it), raised to UPSTREAM_ENVTEST_TIMEOUT_FLOOR (a Go duration, e.g. 60s) when that is set; unchanged otherwise.
func upstreamTimeout(d time.Duration) time.Duration {
	floor, err := time.ParseDuration(os.Getenv("UPSTREAM_ENVTEST_TIMEOUT_FLOOR"))
	if err != nil || floor <= d {
		return d
	}
	return floor
}

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	if os.Getenv("KUBECONFIG") == "" {
		fmt.Println("upstream-envtest: KUBECONFIG must name the API server where capi-serverless does topology")
		return 1
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Printf("upstream-envtest: %v\n", err)
		return 1
	}
	// NOTE: internal/test/envtest's init registers Cluster API's types in client-go's global scheme, the scheme its
	// own manager is built from (plus apps, core, rbac, storage, already in it).
	scheme := clientgoscheme.Scheme
	if os.Getenv("ENVTEST_BLACKBOX_INSTALL_CRDS") == "true" {
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err == nil {
			err = installTestProviderCRDs(c)
		}
		if err != nil {
			fmt.Printf("upstream-envtest: %v\n", err)
			return 1
		}
		fmt.Println("upstream-envtest: test provider CRDs installed")
		return 0
	}

	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  setup.ManagerCacheOptions(scheme, "upstream-envtest", "", 10*time.Minute),
		Client:                 setup.ManagerClientOptions(),
	})
	if err != nil {
		fmt.Printf("upstream-envtest: manager: %v\n", err)
		return 1
	}
	managerCtx, stopManager := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(managerCtx) }()
	if !mgr.GetCache().WaitForCacheSync(managerCtx) {
		stopManager()
		fmt.Printf("upstream-envtest: cache did not sync: %v\n", <-done)
		return 1
	}
	env = &envtest.Environment{Manager: mgr, Client: mgr.GetClient(), Config: cfg}

	// NOTE: upstream's suite sets the same defaults; the tests' own timeouts are passed explicitly.
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	SetDefaultEventuallyTimeout(30 * time.Second)
	code := m.Run()
	stopManager()
	if err := <-done; err != nil {
		fmt.Printf("upstream-envtest: manager stopped with %v\n", err)
	}
	return code
}
