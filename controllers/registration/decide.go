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

package registration

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

// Verdict is what the controller does with a CertificateSigningRequest.
type Verdict int

const (
	// Ignore leaves the CSR alone: it is not an agent's request fed answers (another
	// signer, another requester, or not the exact certificate an agent gets). fed never
	// denies what is not its own.
	Ignore Verdict = iota
	// Register creates the pull Cluster the CSR names, then approves the CSR.
	Register
	// Approve approves the CSR: a pull cluster registering again, or its agent renewing
	// its certificate.
	Approve
	// Deny denies the CSR: the cluster it names is joined in push mode.
	Deny
	// Wait looks at the CSR again shortly: its Cluster is being deleted.
	Wait
)

func (v Verdict) String() string {
	return [...]string{"Ignore", "Register", "Approve", "Deny", "Wait"}[v]
}

// Reasons of the conditions the controller sets.
const (
	ReasonRegistration   = "FedAgentRegistration"
	ReasonReregistration = "FedAgentReregistration"
	ReasonRenewal        = "FedAgentRenewal"
	ReasonPushCluster    = "FedAgentPushCluster"
	ReasonOtherMember    = "FedAgentOtherMember"
)

// Decision is the verdict on one CSR, with what it needs.
type Decision struct {
	Verdict Verdict
	// Cluster is the pull cluster the CSR is for (every verdict but Ignore).
	Cluster string
	// Reason and Message go into the Approved or Denied condition; for Ignore, Message
	// says why (for the logs).
	Reason, Message string
	// Provider, Region and Zone are the new Cluster's, from the CSR's annotations
	// (Register), and ID its member's identity (spec.id).
	Provider, Region, Zone, ID string
}

// allowedUsages are the key usages an agent's client certificate may have; client auth
// is required.
var allowedUsages = []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment}

// Decide says what to do with a pending CSR. cluster looks up a Cluster of the fleet by
// name, byID by its spec.id (nil when there is none). Decide reads nothing else: the CSR's
// spec (signer, usages, the x509 request), its member's identity (AnnotationClusterID), and
// who asked for it (spec.username and spec.groups, which the host's API server sets).
//
// A registration is tied to its member: a new one records the member's identity in the
// Cluster, and one of a name that exists is approved only from the same member, so that a
// token holder cannot take over another member's cluster (nor a second member, registered
// under a name that defaults to its context's, replace the first).
func Decide(csr *certificatesv1.CertificateSigningRequest, cluster, byID func(string) *clusterv1alpha1.Cluster) Decision {
	name, why := agentRequest(csr)
	if why != "" {
		return Decision{Verdict: Ignore, Message: why}
	}
	registering := slices.Contains(csr.Spec.Groups, clusterv1alpha1.RegisterGroup)
	renewing := csr.Spec.Username == clusterv1alpha1.AgentUser(name)
	if !registering && !renewing {
		return Decision{Verdict: Ignore, Cluster: name, Message: fmt.Sprintf("requested by %s, neither a fed bootstrap token (group %s) nor the agent %s",
			csr.Spec.Username, clusterv1alpha1.RegisterGroup, clusterv1alpha1.AgentUser(name))}
	}
	c := cluster(name)
	id := csr.Annotations[clusterv1alpha1.AnnotationClusterID]
	if registering && id == "" {
		return Decision{Verdict: Deny, Cluster: name, Reason: ReasonOtherMember,
			Message: fmt.Sprintf("the request does not say which member it comes from (annotation %s): register with kubectl fed register", clusterv1alpha1.AnnotationClusterID)}
	}
	if other := byID(id); registering && other != nil && other.Name != name {
		return Decision{Verdict: Deny, Cluster: name, Reason: ReasonOtherMember,
			Message: fmt.Sprintf("this member is in the fleet already, as cluster %s (%s mode); unregister or unjoin %s first", other.Name, other.Spec.SyncMode, other.Name)}
	}
	switch {
	case c == nil && renewing && !registering:
		return Decision{Verdict: Ignore, Cluster: name, Message: fmt.Sprintf("a renewal for cluster %s, which is not in the fleet", name)}
	case c == nil:
		a := csr.Annotations
		return Decision{Verdict: Register, Cluster: name, Reason: ReasonRegistration,
			Message:  fmt.Sprintf("fed registered the pull cluster %s for %s", name, csr.Spec.Username),
			Provider: a[clusterv1alpha1.AnnotationProvider], Region: a[clusterv1alpha1.AnnotationRegion], Zone: a[clusterv1alpha1.AnnotationZone], ID: id}
	case c.DeletionTimestamp != nil:
		return Decision{Verdict: Wait, Cluster: name, Message: fmt.Sprintf("cluster %s is being deleted", name)}
	case c.Spec.SyncMode != clusterv1alpha1.Pull && registering:
		return Decision{Verdict: Deny, Cluster: name, Reason: ReasonPushCluster,
			Message: fmt.Sprintf("cluster %s is joined in push mode; unjoin it first ('kubectl fed unjoin %s') or register under another name", name, name)}
	case c.Spec.SyncMode != clusterv1alpha1.Pull:
		return Decision{Verdict: Ignore, Cluster: name, Message: fmt.Sprintf("a renewal for cluster %s, which is joined in push mode", name)}
	case renewing:
		return Decision{Verdict: Approve, Cluster: name, Reason: ReasonRenewal,
			Message: fmt.Sprintf("fed renewed the certificate of the agent of pull cluster %s", name)}
	case c.Spec.ID != id:
		return Decision{Verdict: Deny, Cluster: name, Reason: ReasonOtherMember,
			Message: fmt.Sprintf("cluster %s is registered by another member; unregister it first ('kubectl fed unregister %s') or register under another name", name, name)}
	default:
		return Decision{Verdict: Approve, Cluster: name, Reason: ReasonReregistration,
			Message: fmt.Sprintf("fed registered the pull cluster %s again for %s", name, csr.Spec.Username)}
	}
}

// agentRequest returns the cluster a CSR asks an agent's certificate for, or why it is not
// such a request: the kube-apiserver-client signer; a request whose subject is exactly
// CN AgentUser(cluster), O AgentGroup, with no subject alternative names; usages within
// allowedUsages, client auth among them.
func agentRequest(csr *certificatesv1.CertificateSigningRequest) (cluster, why string) {
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return "", "signer " + csr.Spec.SignerName
	}
	if !slices.Contains(csr.Spec.Usages, certificatesv1.UsageClientAuth) {
		return "", "no client auth usage"
	}
	for _, u := range csr.Spec.Usages {
		if !slices.Contains(allowedUsages, u) {
			return "", fmt.Sprintf("usage %q", u)
		}
	}
	req, err := parseRequest(csr.Spec.Request)
	if err != nil {
		return "", err.Error()
	}
	cn := req.Subject.CommonName
	cluster, ok := strings.CutPrefix(cn, clusterv1alpha1.AgentUserPrefix)
	if !ok {
		return "", fmt.Sprintf("common name %q", cn)
	}
	if errs := validation.IsDNS1123Label(cluster); len(errs) > 0 {
		return "", fmt.Sprintf("common name %q: cluster name: %s", cn, strings.Join(errs, "; "))
	}
	if !slices.Equal(req.Subject.Organization, []string{clusterv1alpha1.AgentGroup}) {
		return "", fmt.Sprintf("organizations %q", req.Subject.Organization)
	}
	if len(req.DNSNames)+len(req.EmailAddresses)+len(req.IPAddresses)+len(req.URIs) > 0 {
		return "", "subject alternative names"
	}
	return cluster, ""
}

// parseRequest decodes the PEM x509 certificate request of a CSR and checks its signature.
func parseRequest(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, fmt.Errorf("no PEM CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, err
	}
	return req, req.CheckSignature()
}

// decided says whether a CSR was approved or denied already, by anyone.
func decided(csr *certificatesv1.CertificateSigningRequest) bool {
	for _, c := range csr.Status.Conditions {
		if c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied || c.Type == certificatesv1.CertificateFailed {
			return true
		}
	}
	return false
}
