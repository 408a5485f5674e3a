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

package v1alpha1

// Names that join, the cluster controller, the proxy and the plugin agree on.
const (
	// FedNamespace is fed's namespace, in the host (member credentials) and in each member
	// (fed's service account there).
	FedNamespace = "fed-system"

	// FinalizerCleanup keeps a push Cluster that is deleted (unjoined) until fed removed
	// from the member what it propagated there (its Works' cleanup) and its execution
	// namespace is gone; a member not Ready then keeps its copies.
	FinalizerCleanup = "cluster.fedhq.io/cleanup"
	// MemberServiceAccount is the service account join creates in a member for fed.
	MemberServiceAccount = "fed"

	// SecretTokenKey, SecretCABundleKey and SecretKubeconfigKey are the keys of the Secret
	// that spec.secretRef names: a bearer token and the CA bundle of the member's API
	// server, or a whole kubeconfig.
	SecretTokenKey      = "token"
	SecretCABundleKey   = "caBundle"
	SecretKubeconfigKey = "kubeconfig"
	// AnnotationTokenExpiration on that Secret is when its token expires (RFC 3339). join
	// records it for the token it gets from the member's TokenRequest API, and fed renews
	// such a token before then, recording the new expiry. fed leaves a Secret without it
	// alone (a token that does not expire, a kubeconfig).
	AnnotationTokenExpiration = "cluster.fedhq.io/token-expiration"
	// ClusterConditionTokenCurrent is the Cluster condition of fed's renewal of the token
	// in its Secret, set only for a Secret with AnnotationTokenExpiration: True while the
	// token has more than a third of its lifetime left or was renewed, False when fed
	// could not renew it (reason RenewalFailed while it is still valid, Expired after).
	ClusterConditionTokenCurrent = "TokenCurrent"

	// TaintClusterNotReady is set (NoSchedule) while the member answers but is not ready.
	TaintClusterNotReady = "cluster.fedhq.io/not-ready"
	// TaintClusterUnreachable is set (NoSchedule) while the member does not answer.
	TaintClusterUnreachable = "cluster.fedhq.io/unreachable"
	// TaintClusterUnschedulable is the cordon taint (NoSchedule).
	TaintClusterUnschedulable = "cluster.fedhq.io/unschedulable"

	// LabelCluster labels what fed merges from several members (the fleet's metrics) with
	// the member each item comes from; the plugin uses the same key as an annotation.
	LabelCluster = "cluster.fedhq.io/cluster"
)

// Names of pull mode, which register, the agent, fed's registration controller and fed's
// authorizer agree on.
const (
	// RegisterGroup is the group fed's bootstrap tokens authenticate into in the host (their
	// auth-extra-groups): it may only ask for an agent's client certificate.
	RegisterGroup = "system:bootstrappers:fed:register"
	// AgentGroup is the group (the certificate's organization) of every agent's identity.
	AgentGroup = "system:fed:agents"
	// AgentUserPrefix starts an agent's user name (the certificate's common name), which
	// ends with its cluster's name: AgentUser.
	AgentUserPrefix = "system:fed:agent:"
	// AgentServiceAccount is the agent's service account in its member, and AgentSecret
	// the Secret beside it that holds the agent's kubeconfig for the host (key
	// SecretKubeconfigKey) and its cluster's name (key AgentSecretClusterKey). Both are in
	// FedNamespace of the member.
	AgentServiceAccount   = "fed-agent"
	AgentSecret           = "fed-agent"
	AgentSecretClusterKey = "cluster"
	// AgentLeasePrefix starts the name of the Lease in the host's FedNamespace that a
	// pull cluster's agent renews while it runs: AgentLease.
	AgentLeasePrefix = "fed-agent-"
	// AgentTunnelAddress is the address fed dials through a pull cluster's tunnel (the
	// Cluster's attach subresource, which its agent holds open): the agent answers it with
	// its cluster's API server, under the agent's own credentials, and accepts no other.
	AgentTunnelAddress = "kube-apiserver:80"

	// LabelAgent labels the host objects fed's registration controller makes for a pull
	// cluster's agent (its Lease, and the Role and RoleBinding that let the agent renew
	// it) with the cluster's name, so that they go with the Cluster.
	LabelAgent = "cluster.fedhq.io/agent"
	// AnnotationProvider, AnnotationRegion and AnnotationZone on an agent's
	// CertificateSigningRequest carry what register was told of its cluster; the
	// registration controller copies them into the Cluster it creates.
	AnnotationProvider = "cluster.fedhq.io/provider"
	AnnotationRegion   = "cluster.fedhq.io/region"
	AnnotationZone     = "cluster.fedhq.io/zone"
	// AnnotationClusterID on an agent's CertificateSigningRequest is its member's identity
	// (the UID of its kube-system namespace, as spec.id of a joined cluster): a new
	// registration records it in the Cluster's spec.id, so that one member holds one name.
	// It proves nothing (anyone who may read the Cluster reads it): what lets a member
	// register a name again is its agent's key (AnnotationAgentKey).
	AnnotationClusterID = "cluster.fedhq.io/id"

	// RegistrationGroupPrefix starts the second organization of an agent's certificate:
	// RegistrationGroup(id), where id names one registration of a pull cluster, chosen by
	// kubectl fed register when it registers the name anew. The registration controller
	// records it on the Cluster it creates (AnnotationRegistration), renewals and
	// registrations again carry it, and fed-apiserver's authorizer refuses a certificate of
	// another: one of an earlier cluster of the same name, unregistered since, works no more.
	RegistrationGroupPrefix = "system:fed:registration:"
	// AnnotationRegistration, on a pull Cluster, is the id of its registration
	// (RegistrationGroup), written by fed's registration controller when it creates the
	// Cluster; it may not change afterwards.
	AnnotationRegistration = "cluster.fedhq.io/registration"
	// AnnotationAgentKey, on a pull Cluster, is the SHA-256 of the public key
	// (SubjectPublicKeyInfo, "sha256:<hex>") of the certificate fed last approved for its
	// agent, written by fed's registration controller at each approval: registering the
	// name again with a bootstrap token is approved only for a request signed with that key,
	// which only the agent holds (in its member's Secret fed-system/fed-agent).
	AnnotationAgentKey = "cluster.fedhq.io/agent-key"
	// AnnotationReregistration, "true" on an agent's CertificateSigningRequest, says that
	// it continues a registration (the one of the agent's certificate in the member's
	// Secret) rather than making one: fed then approves it only for a Cluster that exists,
	// and denies it with ReasonNotInFleet when the cluster is gone, so that a new Cluster
	// of the name never takes an earlier one's registration.
	AnnotationReregistration = "cluster.fedhq.io/reregistration"
	// ReasonNotInFleet is the reason of the denial of a request that continues a
	// registration of a cluster that is not in the fleet (AnnotationReregistration);
	// kubectl fed register then asks again with a new registration and key.
	ReasonNotInFleet = "FedAgentNotInFleet"
)

// RegistrationGroup is the group of the certificates of one registration of a pull cluster.
func RegistrationGroup(id string) string { return RegistrationGroupPrefix + id }

// AgentUser is the user name of the agent of a pull cluster.
func AgentUser(cluster string) string { return AgentUserPrefix + cluster }

// AgentLease is the name of the Lease a pull cluster's agent renews in the host.
func AgentLease(cluster string) string { return AgentLeasePrefix + cluster }
