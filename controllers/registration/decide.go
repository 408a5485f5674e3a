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
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/types"
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
	// Deny denies the CSR: an agent's request for a name fed does not give its sender (a
	// push cluster's, one another agent holds, one another member is registered as).
	Deny
	// Wait looks at the CSR again shortly: its Cluster is being deleted.
	Wait
)

func (v Verdict) String() string {
	return [...]string{"Ignore", "Register", "Approve", "Deny", "Wait"}[v]
}

// Reasons of the conditions the controller sets.
const (
	ReasonRegistration    = "FedAgentRegistration"
	ReasonReregistration  = "FedAgentReregistration"
	ReasonRenewal         = "FedAgentRenewal"
	ReasonPushCluster     = "FedAgentPushCluster"
	ReasonOtherMember     = "FedAgentOtherMember"
	ReasonNotItsAgent     = "FedAgentNotItsAgent"
	ReasonOldRegistration = "FedAgentOldRegistration"
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
	// Registration is the registration the certificate is of (RegistrationGroup), which a
	// new Cluster records; Key the SHA-256 of the request's public key, which the Cluster
	// records as its agent's at every approval.
	Registration, Key string
	// UID is the Cluster's an approval is for, whose key it records only if it is still
	// that Cluster.
	UID types.UID
}

// allowedUsages are the key usages an agent's client certificate may have; client auth
// is required.
var allowedUsages = []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment}

// Decide says what to do with a pending CSR. cluster looks up a Cluster of the fleet by
// name, byID by its spec.id (nil when there is none). Decide reads nothing else: the CSR's
// spec (signer, usages, the x509 request), its member's identity (AnnotationClusterID), and
// who asked for it (spec.username and spec.groups, which the host's API server sets).
//
// A registration is tied to its agent, by what only the agent holds:
//   - a fed bootstrap token registers a name nobody holds: the new Cluster records the
//     registration the certificate is of and the key it was asked with;
//   - a name a pull cluster holds is registered again by a bootstrap token only with the
//     key its agent holds (the request is signed with it), so that a token holder cannot
//     take over another member's cluster, nor a second member replace the first;
//   - the agent renews its certificate with its current one, of the same registration;
//   - a request that says it continues a registration (AnnotationReregistration) is never
//     made a new Cluster, so that each new Cluster has a registration of its own.
//
// A certificate of another registration of the name (a cluster unregistered and
// registered anew) is never renewed, and fed-apiserver's authorizer refuses it.
func Decide(csr *certificatesv1.CertificateSigningRequest, cluster, byID func(string) *clusterv1alpha1.Cluster) Decision {
	req, why := agentRequest(csr)
	if why != "" {
		return Decision{Verdict: Ignore, Message: why}
	}
	name := req.cluster
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
	recorded := ""
	if c != nil {
		recorded = c.Annotations[clusterv1alpha1.AnnotationRegistration]
	}
	switch {
	case c == nil && renewing && !registering:
		return Decision{Verdict: Ignore, Cluster: name, Message: fmt.Sprintf("a renewal for cluster %s, which is not in the fleet", name)}
	case c == nil && csr.Annotations[clusterv1alpha1.AnnotationReregistration] == "true":
		return Decision{Verdict: Deny, Cluster: name, Reason: clusterv1alpha1.ReasonNotInFleet,
			Message: fmt.Sprintf("cluster %s is not in the fleet (unregistered since this member's agent got its certificate): a new cluster %s is a new registration, "+
				"with a new id and key, which kubectl fed register makes when it reads this", name, name)}
	case c == nil:
		a := csr.Annotations
		return Decision{Verdict: Register, Cluster: name, Reason: ReasonRegistration,
			Message:  fmt.Sprintf("fed registered the pull cluster %s for %s", name, csr.Spec.Username),
			Provider: a[clusterv1alpha1.AnnotationProvider], Region: a[clusterv1alpha1.AnnotationRegion], Zone: a[clusterv1alpha1.AnnotationZone], ID: id,
			Registration: req.registration, Key: req.key}
	case c.DeletionTimestamp != nil:
		return Decision{Verdict: Wait, Cluster: name, Message: fmt.Sprintf("cluster %s is being deleted", name)}
	case c.Spec.SyncMode != clusterv1alpha1.Pull && registering:
		return Decision{Verdict: Deny, Cluster: name, Reason: ReasonPushCluster,
			Message: fmt.Sprintf("cluster %s is joined in push mode; unjoin it first ('kubectl fed unjoin %s') or register under another name", name, name)}
	case c.Spec.SyncMode != clusterv1alpha1.Pull:
		return Decision{Verdict: Ignore, Cluster: name, Message: fmt.Sprintf("a renewal for cluster %s, which is joined in push mode", name)}
	case renewing:
		if recorded == "" || recorded != req.registration || !slices.Contains(csr.Spec.Groups, clusterv1alpha1.RegistrationGroup(recorded)) {
			// Not fed's to deny: the certificate of another registration asks.
			return Decision{Verdict: Ignore, Cluster: name, Reason: ReasonOldRegistration,
				Message: fmt.Sprintf("a renewal of registration %s of cluster %s, which is registration %q now: a certificate of an earlier cluster %s", req.registration, name, recorded, name)}
		}
		return Decision{Verdict: Approve, Cluster: name, UID: c.UID, Reason: ReasonRenewal, Key: req.key,
			Message: fmt.Sprintf("fed renewed the certificate of the agent of pull cluster %s", name)}
	case recorded == "":
		return Decision{Verdict: Deny, Cluster: name, Reason: ReasonNotItsAgent,
			Message: fmt.Sprintf("cluster %s records no registration (it was made by hand, or registered by a fed that did not record them), so no agent's key registers it again; "+
				"delete it first ('kubectl fed unregister %s') or register under another name", name, name)}
	case c.Annotations[clusterv1alpha1.AnnotationAgentKey] != req.key:
		return Decision{Verdict: Deny, Cluster: name, Reason: ReasonNotItsAgent,
			Message: fmt.Sprintf("cluster %s is registered by its agent, and only that agent's key (in its member's Secret %s/%s) registers it again; "+
				"to move %s to another member, unregister it first ('kubectl fed unregister %s') or register under another name",
				name, clusterv1alpha1.FedNamespace, clusterv1alpha1.AgentSecret, name, name)}
	case recorded != req.registration:
		return Decision{Verdict: Deny, Cluster: name, Reason: ReasonOldRegistration,
			Message: fmt.Sprintf("the request is of registration %s of cluster %s, which is registration %s now; unregister %s first ('kubectl fed unregister %s') or register under another name",
				req.registration, name, recorded, name, name)}
	default:
		return Decision{Verdict: Approve, Cluster: name, UID: c.UID, Reason: ReasonReregistration, Key: req.key,
			Message: fmt.Sprintf("fed registered the pull cluster %s again for %s", name, csr.Spec.Username)}
	}
}

// request is what an agent's CSR asks for: the cluster, the registration, and the SHA-256
// of its public key (KeyHash).
type request struct{ cluster, registration, key string }

// agentRequest returns what a CSR asks an agent's certificate for, or why it is not such a
// request: the kube-apiserver-client signer; a request whose subject is exactly CN
// AgentUser(cluster), O AgentGroup and RegistrationGroup(id), with no subject alternative
// names; usages within allowedUsages, client auth among them.
func agentRequest(csr *certificatesv1.CertificateSigningRequest) (request, string) {
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return request{}, "signer " + csr.Spec.SignerName
	}
	if !slices.Contains(csr.Spec.Usages, certificatesv1.UsageClientAuth) {
		return request{}, "no client auth usage"
	}
	for _, u := range csr.Spec.Usages {
		if !slices.Contains(allowedUsages, u) {
			return request{}, fmt.Sprintf("usage %q", u)
		}
	}
	req, err := parseRequest(csr.Spec.Request)
	if err != nil {
		return request{}, err.Error()
	}
	cn := req.Subject.CommonName
	cluster, ok := strings.CutPrefix(cn, clusterv1alpha1.AgentUserPrefix)
	if !ok {
		return request{}, fmt.Sprintf("common name %q", cn)
	}
	if errs := validation.IsDNS1123Label(cluster); len(errs) > 0 {
		return request{}, fmt.Sprintf("common name %q: cluster name: %s", cn, strings.Join(errs, "; "))
	}
	orgs := req.Subject.Organization
	if len(orgs) != 2 || orgs[0] != clusterv1alpha1.AgentGroup || !strings.HasPrefix(orgs[1], clusterv1alpha1.RegistrationGroupPrefix) {
		return request{}, fmt.Sprintf("organizations %q, want %s and %s<id>", orgs, clusterv1alpha1.AgentGroup, clusterv1alpha1.RegistrationGroupPrefix)
	}
	registration := strings.TrimPrefix(orgs[1], clusterv1alpha1.RegistrationGroupPrefix)
	if errs := validation.IsDNS1123Label(registration); len(errs) > 0 {
		return request{}, fmt.Sprintf("registration %q: %s", registration, strings.Join(errs, "; "))
	}
	if len(req.DNSNames)+len(req.EmailAddresses)+len(req.IPAddresses)+len(req.URIs) > 0 {
		return request{}, "subject alternative names"
	}
	key, err := KeyHash(req.PublicKey)
	if err != nil {
		return request{}, err.Error()
	}
	return request{cluster: cluster, registration: registration, key: key}, ""
}

// KeyHash is how a Cluster records its agent's key (AnnotationAgentKey): "sha256:" and the
// hex of the SHA-256 of the key's SubjectPublicKeyInfo.
func KeyHash(pub any) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("the request's public key: %v", err)
	}
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
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
