// Golden generator: the Cluster API Operator's applied-spec hash inputs, marshalled by Go's encoding/json from the
// operator's own v1alpha2 types, for the TypeScript implementation to match byte for byte.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	operatorv1 "sigs.k8s.io/cluster-api-operator/api/v1alpha2"
)

type testCase struct {
	Name         string            `json:"name"`
	Spec         json.RawMessage   `json:"spec"`
	ConfigSecret *corev1.Secret    `json:"configSecret,omitempty"`
	ConfigMap    *corev1.ConfigMap `json:"configMap,omitempty"`
	CacheSecret  corev1.Secret     `json:"cacheSecret"`
}

type golden struct {
	Name     string `json:"name"`
	SpecJSON string `json:"specJson"`
	Hash     string `json:"hash"`
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func marshal(v interface{}) []byte {
	b, err := json.Marshal(v)
	must(err)
	return b
}

func main() {
	raw, err := os.ReadFile(os.Args[1])
	must(err)
	var cases []testCase
	must(json.Unmarshal(raw, &cases))
	out := []golden{}
	for _, c := range cases {
		var spec operatorv1.ProviderSpec
		must(json.Unmarshal(c.Spec, &spec))
		h := sha256.New()
		specJSON := marshal(spec)
		h.Write(specJSON)
		if c.ConfigSecret != nil {
			h.Write(marshal(c.ConfigSecret.Data))
		}
		if c.ConfigMap != nil {
			h.Write(marshal(c.ConfigMap.Data))
			h.Write(marshal(c.ConfigMap.BinaryData))
		}
		h.Write(marshal(c.CacheSecret.Data))
		h.Write(marshal([]byte{}))
		out = append(out, golden{Name: c.Name, SpecJSON: string(specJSON), Hash: fmt.Sprintf("%x", h.Sum(nil))})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	must(err)
	must(os.WriteFile(os.Args[2], append(b, '\n'), 0o644))
}
