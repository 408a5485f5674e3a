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

package controllers

import (
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	// leader_election_master_status on /metrics: 1 on the replica that runs the controllers.
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection"
)

// LeaderElection says which Lease of the host the replicas of fed-apiserver compete for:
// every replica serves the API, the one that holds the Lease runs the controllers.
type LeaderElection struct {
	// Namespace and Name are the Lease's, in the host cluster.
	Namespace, Name string
	// LeaseDuration is how long the others wait after the holder's last renewal before one
	// takes the Lease over; RenewDeadline how long the holder keeps trying to renew before
	// it gives up; RetryPeriod how often each tries.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// elect runs lead while this process holds the Lease. A replica that loses it (its host
// did not answer within RenewDeadline, say) exits, as kube-controller-manager does: its
// controllers cannot be stopped half-way, and it is started again as a candidate.
func elect(ctx context.Context, host kubernetes.Interface, le *LeaderElection, lead func(context.Context)) error {
	hostname, err := os.Hostname()
	if err != nil {
		return err
	}
	id := hostname + "_" + string(uuid.NewUUID())
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
		Client:     host.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				klog.FromContext(ctx).Info("Holding the Lease: running the controllers", "lease", le.Namespace+"/"+le.Name, "identity", id)
				lead(ctx)
			},
			OnStoppedLeading: func() {
				if ctx.Err() != nil {
					return // the server is stopping
				}
				klog.FromContext(ctx).Error(nil, "Lost the Lease: exiting so that another replica runs the controllers",
					"lease", le.Namespace+"/"+le.Name, "identity", id)
				klog.FlushAndExit(klog.ExitFlushTimeout, 1)
			},
			OnNewLeader: func(holder string) {
				if holder != id {
					klog.FromContext(ctx).Info("Another replica runs the controllers", "lease", le.Namespace+"/"+le.Name, "holder", holder)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	go elector.Run(ctx)
	return nil
}
