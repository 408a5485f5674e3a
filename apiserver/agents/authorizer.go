/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package agents confines each pull cluster's agent to its own cluster, as the Node
// authorizer confines kubelets to their own node. The host's RBAC gives every agent (group
// AgentGroup) the kinds agents use; this authorizer, first in fed-apiserver's chain, denies
// an agent anything of fed's API that is not its own cluster's: its Cluster (read, and
// write its status), the Works of its execution namespace, the interpreter's
// customizations (read), and in the fleet, a Namespace by name (get) and events (create,
// update, patch), which this authorizer allows itself. Anyone else is not its business.
package agents

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"k8s.io/apiserver/pkg/authorization/authorizer"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
)

// Authorizer denies agents what is not theirs and has no opinion on anything else. It
// also denies the agent of a cluster that is not a pull cluster of the fleet (unregistered,
// being deleted, or joined in push mode since): an agent left running after its cluster
// left pull mode may do nothing more.
type Authorizer struct {
	clusters atomic.Pointer[clusterlisters.ClusterLister]
}

// New returns an Authorizer that denies every agent until SetClusters.
func New() *Authorizer { return &Authorizer{} }

// SetClusters gives the Authorizer the fleet's Clusters, once fed's informers run.
func (az *Authorizer) SetClusters(l clusterlisters.ClusterLister) { az.clusters.Store(&l) }

// Authorizer returns it as an authorizer.Authorizer.
func (az *Authorizer) Authorizer() authorizer.Authorizer {
	return authorizer.AuthorizerFunc(az.authorize)
}

var reads = []string{"get", "list", "watch"}

func (az *Authorizer) authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	user := a.GetUser()
	if user == nil {
		return authorizer.DecisionNoOpinion, "", nil
	}
	cluster, isAgent := strings.CutPrefix(user.GetName(), clusterv1alpha1.AgentUserPrefix)
	if !isAgent && !slices.Contains(user.GetGroups(), clusterv1alpha1.AgentGroup) {
		return authorizer.DecisionNoOpinion, "", nil
	}
	if cluster == "" {
		return authorizer.DecisionDeny, fmt.Sprintf("user %q is in group %s but is no cluster's agent", user.GetName(), clusterv1alpha1.AgentGroup), nil
	}
	if !a.IsResourceRequest() {
		return authorizer.DecisionNoOpinion, "", nil // discovery, version, health: the host decides
	}
	if why := az.pullCluster(cluster, user.GetGroups()); why != "" {
		return authorizer.DecisionDeny, why, nil
	}
	if why := fleetRequest(a); why != "" {
		// The host's RBAC lets agents into the fleet (fleets/proxy), and not at the host's
		// own namespaces or events: fed-apiserver, which serves the fleet, allows these.
		return authorizer.DecisionAllow, why, nil
	}
	if ok, why := allowed(cluster, a); !ok {
		return authorizer.DecisionDeny, fmt.Sprintf("the agent of cluster %s may not %s: %s", cluster, describe(a), why), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// pullCluster says why the agent of a cluster, in groups, may do nothing: the cluster is
// not a pull cluster of the fleet, or the agent's certificate is of another registration of
// it than the current one; "" when it may.
func (az *Authorizer) pullCluster(cluster string, groups []string) string {
	l := az.clusters.Load()
	if l == nil {
		return "fed-apiserver is starting: it does not know its clusters yet; the agent of cluster " + cluster + " may try again"
	}
	c, err := (*l).Get(cluster)
	switch {
	case err != nil:
		return fmt.Sprintf("cluster %s is not in the fleet (unregistered?): its agent may do nothing; register it again with kubectl fed register", cluster)
	case c.DeletionTimestamp != nil:
		return fmt.Sprintf("cluster %s is leaving the fleet: its agent may do nothing", cluster)
	case c.Spec.SyncMode != clusterv1alpha1.Pull:
		return fmt.Sprintf("cluster %s is in %s mode: fed reaches it itself, and its agent may do nothing; stop fed-agent there", cluster, c.Spec.SyncMode)
	}
	registration := c.Annotations[clusterv1alpha1.AnnotationRegistration]
	if registration == "" || !slices.Contains(groups, clusterv1alpha1.RegistrationGroup(registration)) {
		return fmt.Sprintf("the certificate of the agent of cluster %s is not of its current registration %q (one of an earlier cluster %s?): "+
			"its agent may do nothing; register the member again with kubectl fed register", cluster, registration, cluster)
	}
	return ""
}

// allowed says whether an agent may make a request of fed's API, and why not.
func allowed(cluster string, a authorizer.Attributes) (bool, string) {
	verb := a.GetVerb()
	switch {
	case a.GetAPIGroup() == clusterv1alpha1.GroupName && a.GetResource() == "clusters":
		if a.GetName() != cluster {
			return false, "an agent reads and reports only its own Cluster (list and watch with fieldSelector metadata.name=" + cluster + ")"
		}
		switch a.GetSubresource() {
		case "":
			return slices.Contains(reads, verb), "the Cluster's spec is the host's"
		case "status":
			return slices.Contains([]string{"get", "update", "patch"}, verb), "an agent reads and writes its Cluster's status"
		case "attach":
			return verb == "get" || verb == "create", "an agent opens its tunnel with get"
		}
		return false, "an agent uses no other subresource of its Cluster"
	case a.GetAPIGroup() == federationv1alpha1.GroupName && a.GetResource() == "works":
		if ns := federationv1alpha1.ExecutionNamespace(cluster); a.GetNamespace() != ns {
			return false, "an agent reads and reports only the Works of its execution namespace " + ns
		}
		return a.GetSubresource() == "" || a.GetSubresource() == "status", "an agent uses no other subresource of Works"
	case a.GetAPIGroup() == federationv1alpha1.GroupName &&
		(a.GetResource() == "resourceinterpretercustomizations" || a.GetResource() == "resourceinterpreterwebhookconfigurations"):
		return a.GetSubresource() == "" && slices.Contains(reads, verb), "an agent only reads the interpreter's customizations and webhooks"
	}
	return false, "an agent uses only its Cluster, its Works and the interpreter's customizations and webhooks, gets the fleet's Namespaces by name and records events there"
}

// fleetRequest says why an agent may make a request of the fleet, "" when it may not: get
// one namespace by its name, before it makes that namespace in its cluster; record events
// (about the templates its Works were made from), as kubelets record theirs. Core kinds
// reach fed-apiserver only as the inner requests of the paths it serves whole: the fleet's,
// which the host lets agents into (fleets/proxy), and the search cache's and fleet proxy's,
// which it does not (nothing of search.fedhq.io is granted to them). This authorizer
// cannot tell those apart (it sees the inner request), so the host's RBAC on the outer
// path is what keeps agents to the fleet.
func fleetRequest(a authorizer.Attributes) string {
	if a.GetAPIGroup() != "" || a.GetSubresource() != "" {
		return ""
	}
	switch {
	case a.GetResource() == "namespaces" && a.GetVerb() == "get" && a.GetName() != "":
		return "an agent reads a namespace of the fleet by name"
	case a.GetResource() == "events" && slices.Contains([]string{"create", "update", "patch"}, a.GetVerb()):
		return "an agent records events in the fleet"
	}
	return ""
}

// describe says what a request asks, as the host's RBAC messages do.
func describe(a authorizer.Attributes) string {
	resource := a.GetResource()
	if a.GetAPIGroup() != "" {
		resource += "." + a.GetAPIGroup()
	}
	if a.GetSubresource() != "" {
		resource += "/" + a.GetSubresource()
	}
	s := a.GetVerb() + " " + resource
	if a.GetName() != "" {
		s += " " + a.GetName()
	}
	if a.GetNamespace() != "" {
		s += " in namespace " + a.GetNamespace()
	}
	return s
}
