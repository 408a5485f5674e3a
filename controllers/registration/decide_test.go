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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

func TestDecide(t *testing.T) {
	newKey := func() *ecdsa.PrivateKey {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	// key is the one the requests are signed with; agentKey the one pull1's agent holds.
	key, agentKey := newKey(), newKey()
	signed := func(t *testing.T, tmpl x509.CertificateRequest, k *ecdsa.PrivateKey) []byte {
		der, err := x509.CreateCertificateRequest(rand.Reader, &tmpl, k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	}
	request := func(t *testing.T, tmpl x509.CertificateRequest) []byte { return signed(t, tmpl, key) }
	subject := func(cluster, registration string) pkix.Name {
		return pkix.Name{CommonName: clusterv1alpha1.AgentUser(cluster),
			Organization: []string{clusterv1alpha1.AgentGroup, clusterv1alpha1.RegistrationGroup(registration)}}
	}
	agentSubject := func(cluster string) pkix.Name { return subject(cluster, "r-"+cluster) }
	agentKeyHash, err := KeyHash(&agentKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	bootstrapper := func(c *certificatesv1.CertificateSigningRequest) {
		c.Spec.Username = "system:bootstrap:abcdef"
		c.Spec.Groups = []string{"system:bootstrappers", clusterv1alpha1.RegisterGroup, "system:authenticated"}
	}
	// agent makes the request its agent's renewal, as pull1's current certificate.
	agent := func(c *certificatesv1.CertificateSigningRequest, cluster string) {
		c.Spec.Username = clusterv1alpha1.AgentUser(cluster)
		c.Spec.Groups = []string{clusterv1alpha1.AgentGroup, clusterv1alpha1.RegistrationGroup("r-" + cluster), "system:authenticated"}
	}
	cluster := func(name string, mode clusterv1alpha1.ClusterSyncMode) *clusterv1alpha1.Cluster {
		c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("cluster-" + name)},
			Spec: clusterv1alpha1.ClusterSpec{SyncMode: mode, ID: "uid-" + name}}
		if mode == clusterv1alpha1.Pull {
			c.Annotations = map[string]string{clusterv1alpha1.AnnotationRegistration: "r-" + name, clusterv1alpha1.AnnotationAgentKey: agentKeyHash}
		}
		return c
	}
	deleting := cluster("pull1", clusterv1alpha1.Pull)
	deleting.DeletionTimestamp = &metav1.Time{}
	handMade := cluster("handmade", clusterv1alpha1.Pull)
	handMade.Annotations = nil
	fleet := map[string]*clusterv1alpha1.Cluster{
		"pull1":    cluster("pull1", clusterv1alpha1.Pull),
		"member1":  cluster("member1", clusterv1alpha1.Push),
		"deleting": deleting,
		"handmade": handMade,
	}

	tests := []struct {
		name string
		// change alters a good registration CSR for cluster "new1" by a bootstrap token.
		change      func(t *testing.T, c *certificatesv1.CertificateSigningRequest)
		want        Verdict
		wantCluster string
		wantReason  string
		wantMessage string // a part of it
	}{{
		name:        "a new cluster registers",
		change:      func(*testing.T, *certificatesv1.CertificateSigningRequest) {},
		want:        Register,
		wantCluster: "new1",
		wantReason:  ReasonRegistration,
	}, {
		name: "a pull cluster registers again with its agent's key",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = signed(t, x509.CertificateRequest{Subject: agentSubject("pull1")}, agentKey)
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-pull1"
		},
		want: Approve, wantCluster: "pull1", wantReason: ReasonReregistration,
	}, {
		name: "a token holder registers a pull cluster's name with its id copied",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("pull1")})
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-pull1"
		},
		want: Deny, wantCluster: "pull1", wantReason: ReasonNotItsAgent, wantMessage: "only that agent's key",
	}, {
		name: "a token holder registers a pull cluster's name with a registration of its own",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: subject("pull1", "r-mine")})
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-pull1"
		},
		want: Deny, wantCluster: "pull1", wantReason: ReasonNotItsAgent, wantMessage: "only that agent's key",
	}, {
		name: "a token holder says it registers a pull cluster again",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("pull1")})
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-pull1"
			c.Annotations[clusterv1alpha1.AnnotationReregistration] = "true"
		},
		want: Deny, wantCluster: "pull1", wantReason: ReasonNotItsAgent, wantMessage: "only that agent's key",
	}, {
		name: "its agent says it registers a pull cluster again",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = signed(t, x509.CertificateRequest{Subject: agentSubject("pull1")}, agentKey)
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-pull1"
			c.Annotations[clusterv1alpha1.AnnotationReregistration] = "true"
		},
		want: Approve, wantCluster: "pull1", wantReason: ReasonReregistration,
	}, {
		name: "a registration again of a cluster that is gone",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Annotations[clusterv1alpha1.AnnotationReregistration] = "true"
		},
		want: Deny, wantCluster: "new1", wantReason: clusterv1alpha1.ReasonNotInFleet, wantMessage: "a new cluster new1 is a new registration",
	}, {
		name: "another member registers a pull cluster's name",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("pull1")})
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-someone-else"
		},
		want: Deny, wantCluster: "pull1", wantReason: ReasonNotItsAgent, wantMessage: "only that agent's key",
	}, {
		name: "a registration of another registration's id",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = signed(t, x509.CertificateRequest{Subject: subject("pull1", "r-old")}, agentKey)
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-pull1"
		},
		want: Deny, wantCluster: "pull1", wantReason: ReasonOldRegistration, wantMessage: "registration r-old of cluster pull1, which is registration r-pull1 now",
	}, {
		name: "a hand-made pull cluster's name",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("handmade")})
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-handmade"
		},
		want: Deny, wantCluster: "handmade", wantReason: ReasonNotItsAgent, wantMessage: "records no registration",
	}, {
		name: "a member in the fleet already registers under a new name",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Annotations[clusterv1alpha1.AnnotationClusterID] = "uid-member1"
		},
		want: Deny, wantCluster: "new1", wantReason: ReasonOtherMember, wantMessage: "in the fleet already, as cluster member1 (Push mode)",
	}, {
		name: "a registration that does not say its member",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			delete(c.Annotations, clusterv1alpha1.AnnotationClusterID)
		},
		want: Deny, wantCluster: "new1", wantReason: ReasonOtherMember, wantMessage: "does not say which member",
	}, {
		name: "the agent renews its certificate",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("pull1")})
			agent(c, "pull1")
		},
		want: Approve, wantCluster: "pull1", wantReason: ReasonRenewal,
	}, {
		name: "an earlier registration's agent renews into the current one",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("pull1")})
			agent(c, "pull1")
			c.Spec.Groups[1] = clusterv1alpha1.RegistrationGroup("r-old")
		},
		want: Ignore, wantCluster: "pull1", wantReason: ReasonOldRegistration, wantMessage: "earlier cluster pull1",
	}, {
		name: "an earlier registration's agent renews",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: subject("pull1", "r-old")})
			agent(c, "pull1")
			c.Spec.Groups[1] = clusterv1alpha1.RegistrationGroup("r-old")
		},
		want: Ignore, wantCluster: "pull1", wantReason: ReasonOldRegistration, wantMessage: "earlier cluster pull1",
	}, {
		name: "a push cluster's name is denied",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("member1")})
		},
		want: Deny, wantCluster: "member1", wantReason: ReasonPushCluster,
		wantMessage: "cluster member1 is joined in push mode; unjoin it first",
	}, {
		name: "a cluster being deleted is waited for",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("deleting")})
		},
		want: Wait, wantCluster: "deleting",
	}, {
		name: "another signer",
		change: func(_ *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.SignerName = certificatesv1.KubeAPIServerClientKubeletSignerName
		},
		want:        Ignore,
		wantMessage: "signer",
	}, {
		name: "subject alternative names",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("new1"), DNSNames: []string{"fed.example"}})
		},
		want: Ignore, wantMessage: "subject alternative names",
	}, {
		name: "an IP address",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("new1"), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}})
		},
		want: Ignore, wantMessage: "subject alternative names",
	}, {
		name: "an extra organization",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			s := agentSubject("new1")
			s.Organization = append(s.Organization, "system:masters")
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: s})
		},
		want: Ignore, wantMessage: "organizations",
	}, {
		name: "no registration",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: pkix.Name{CommonName: clusterv1alpha1.AgentUser("new1"),
				Organization: []string{clusterv1alpha1.AgentGroup}}})
		},
		want: Ignore, wantMessage: "organizations",
	}, {
		name: "a registration that is no DNS label",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: subject("new1", "Not_A_Label")})
		},
		want: Ignore, wantMessage: "registration",
	}, {
		name: "no organization",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: pkix.Name{CommonName: clusterv1alpha1.AgentUser("new1")}})
		},
		want: Ignore, wantMessage: "organizations",
	}, {
		name: "a common name that is no agent's",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:n1",
				Organization: []string{clusterv1alpha1.AgentGroup, clusterv1alpha1.RegistrationGroup("r")}}})
		},
		want: Ignore, wantMessage: "common name",
	}, {
		name: "a cluster name that is no DNS label",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("Bad.Name")})
		},
		want: Ignore, wantMessage: "cluster name",
	}, {
		name:        "a request that does not parse",
		change:      func(_ *testing.T, c *certificatesv1.CertificateSigningRequest) { c.Spec.Request = []byte("not PEM") },
		want:        Ignore,
		wantMessage: "PEM",
	}, {
		name: "server auth usage",
		change: func(_ *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Usages = append(c.Spec.Usages, certificatesv1.UsageServerAuth)
		},
		want: Ignore, wantMessage: "usage",
	}, {
		name: "no client auth usage",
		change: func(_ *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Usages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature}
		},
		want: Ignore, wantMessage: "client auth",
	}, {
		name: "another requester",
		change: func(_ *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Username, c.Spec.Groups = "alice", []string{"system:authenticated"}
		},
		want: Ignore, wantCluster: "new1", wantMessage: "requested by alice",
	}, {
		name: "a renewal by another agent",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("pull1")})
			agent(c, "pull2")
		},
		want: Ignore, wantCluster: "pull1", wantMessage: "requested by system:fed:agent:pull2",
	}, {
		name: "a renewal for a push cluster",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = request(t, x509.CertificateRequest{Subject: agentSubject("member1")})
			agent(c, "member1")
		},
		want: Ignore, wantCluster: "member1", wantMessage: "push mode",
	}, {
		name:   "a renewal for a cluster that is gone",
		change: func(t *testing.T, c *certificatesv1.CertificateSigningRequest) { agent(c, "new1") },
		want:   Ignore, wantCluster: "new1", wantMessage: "not in the fleet",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csr := &certificatesv1.CertificateSigningRequest{
				ObjectMeta: metav1.ObjectMeta{Name: "csr-1", Annotations: map[string]string{
					clusterv1alpha1.AnnotationProvider: "aws", clusterv1alpha1.AnnotationRegion: "us-east", clusterv1alpha1.AnnotationZone: "us-east-1a",
					clusterv1alpha1.AnnotationClusterID: "uid-new1"}},
				Spec: certificatesv1.CertificateSigningRequestSpec{
					SignerName: certificatesv1.KubeAPIServerClientSignerName,
					Request:    request(t, x509.CertificateRequest{Subject: agentSubject("new1")}),
					Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
				},
			}
			bootstrapper(csr)
			tt.change(t, csr)
			got := Decide(csr, func(name string) *clusterv1alpha1.Cluster { return fleet[name] }, func(id string) *clusterv1alpha1.Cluster {
				for _, c := range fleet {
					if c.Spec.ID == id {
						return c
					}
				}
				return nil
			})
			if got.Verdict != tt.want || got.Cluster != tt.wantCluster || got.Reason != tt.wantReason || !strings.Contains(got.Message, tt.wantMessage) {
				t.Fatalf("Decide = %+v, want %v for %q, reason %q, a message with %q", got, tt.want, tt.wantCluster, tt.wantReason, tt.wantMessage)
			}
			if got.Verdict == Register && (got.Provider != "aws" || got.Region != "us-east" || got.Zone != "us-east-1a" || got.ID != "uid-new1" ||
				got.Registration != "r-new1" || !strings.HasPrefix(got.Key, "sha256:")) {
				t.Fatalf("Decide = %+v, want the location of the annotations, the registration and the key", got)
			}
			if (got.Verdict == Approve || got.Verdict == Register) && got.Key == "" {
				t.Fatalf("Decide = %+v, want the request's key to record", got)
			}
			if got.Verdict == Approve && got.UID != fleet[got.Cluster].UID {
				t.Fatalf("Decide = %+v, want the UID of the Cluster whose key it records", got)
			}
		})
	}
}

func TestDecided(t *testing.T) {
	csr := &certificatesv1.CertificateSigningRequest{}
	if decided(csr) {
		t.Fatal("a CSR without conditions is decided")
	}
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateDenied}}
	if !decided(csr) {
		t.Fatal("a denied CSR is not decided")
	}
}
