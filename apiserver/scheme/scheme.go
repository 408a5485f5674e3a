// Package scheme holds the runtime scheme and codecs of fed-apiserver: every fed API group,
// internal and versioned, plus the meta types every API server serves.
package scheme

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	metricsinstall "k8s.io/metrics/pkg/apis/metrics/install"

	clusterinstall "github.com/fedhq/fed/apis/cluster/install"
	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationinstall "github.com/fedhq/fed/apis/federation/install"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	searchinstall "github.com/fedhq/fed/apis/search/install"
	searchv1alpha1 "github.com/fedhq/fed/apis/search/v1alpha1"
)

var (
	// Scheme knows every type fed-apiserver serves.
	Scheme = runtime.NewScheme()
	// Codecs encode and decode them: JSON, YAML and protobuf (every fed group has its
	// generated.pb.go, as the metrics group has; fed's controllers speak protobuf).
	Codecs = serializer.NewCodecFactory(Scheme)
	// ParameterCodec decodes query parameters, including fed's own options types
	// (clusters/proxy's ClusterProxyOptions).
	ParameterCodec = runtime.NewParameterCodec(Scheme)
	// StorageVersions are the versions fed's objects are stored in, one per group: the
	// storage codec and its encode versioner need every group fed serves.
	StorageVersions = schema.GroupVersions{
		clusterv1alpha1.SchemeGroupVersion,
		federationv1alpha1.SchemeGroupVersion,
		searchv1alpha1.SchemeGroupVersion,
	}
)

func init() {
	clusterinstall.Install(Scheme)
	federationinstall.Install(Scheme)
	searchinstall.Install(Scheme)
	// metrics.k8s.io, which fed-apiserver serves for the fleet (never stored).
	metricsinstall.Install(Scheme)

	// The unversioned meta types (Status, WatchEvent, options) of the core group.
	metav1.AddToGroupVersion(Scheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Group: "", Version: "v1"}
	Scheme.AddUnversionedTypes(unversioned,
		&metav1.Status{},
		&metav1.APIVersions{},
		&metav1.APIGroupList{},
		&metav1.APIGroup{},
		&metav1.APIResourceList{},
	)
}
