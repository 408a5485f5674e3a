package app

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	mutatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// policyPlugins are the admission plugins that read their policies from a resource of the
// host cluster, which an older host may not serve.
var policyPlugins = map[string]string{
	mutatingpolicy.PluginName:   "mutatingadmissionpolicies",
	validatingpolicy.PluginName: "validatingadmissionpolicies",
}

// disableUnservedPolicyPlugins turns off each policy admission plugin whose policy resource
// the host does not serve in admissionregistration.k8s.io/v1: such a plugin would wait
// forever for its informer and keep fed-apiserver from becoming ready.
func disableUnservedPolicyPlugins(core *genericoptions.CoreAPIOptions, admission *genericoptions.AdmissionOptions) error {
	if core == nil || admission == nil {
		return nil
	}
	cfg, err := hostConfig(core.CoreAPIKubeconfigPath)
	if err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	served := map[string]bool{}
	list, err := dc.ServerResourcesForGroupVersion("admissionregistration.k8s.io/v1")
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("asking the host which admission policy APIs it serves: %w", err)
	}
	if list != nil {
		for _, r := range list.APIResources {
			served[r.Name] = true
		}
	}
	for plugin, resource := range policyPlugins {
		if !served[resource] {
			klog.InfoS("Admission plugin disabled: the host does not serve its policies", "plugin", plugin, "resource", "admissionregistration.k8s.io/v1 "+resource)
			admission.DisablePlugins = append(admission.DisablePlugins, plugin)
		}
	}
	return nil
}

func hostConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return rest.InClusterConfig()
}
