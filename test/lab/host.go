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

package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// StartHost starts another host cluster for a test that must change what the lab's host
// keeps (a real kubectl fed init replaces the lab's registration of fed-apiserver): a bare
// kube-apiserver on the lab's etcd under a prefix of its own, with the aggregation layer
// configured as the host's and no other component (no controller manager, no nodes). Its
// prefix is emptied before it starts and when it stops, so every run begins empty.
func (l *Lab) StartHost(ctx context.Context, name string) (*Cluster, func(), error) {
	port, err := freePort("127.0.0.1")
	if err != nil {
		return nil, nil, err
	}
	c := &Cluster{Name: name, Port: port, Dir: filepath.Join(l.opts.Dir, name), Kubeconfig: filepath.Join(l.opts.Dir, name+".kubeconfig")}
	p := c.apiserver(l)
	if err := p.stop(10 * time.Second); err != nil { // one a killed test left
		return nil, nil, err
	}
	prefix := "/" + name + "/"
	if err := l.deleteEtcdPrefix(ctx, prefix); err != nil {
		return nil, nil, err
	}
	if err := c.prepare(l.opts.Dir); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := p.start(false); err != nil {
		return nil, nil, err
	}
	stop := func() {
		_ = p.stop(10 * time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = l.deleteEtcdPrefix(ctx, prefix)
	}
	if err := l.waitFor(ctx, name+" apiserver ready", []*process{p}, c.readyz); err != nil {
		stop()
		return nil, nil, err
	}
	return c, stop, nil
}

// EtcdClient is a client of the lab's etcd, for a test that reads what a server stored; the
// caller closes it.
func (l *Lab) EtcdClient() (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: []string{l.etcdURL()}, DialTimeout: 5 * time.Second})
}

// deleteEtcdPrefix deletes every key under prefix in the lab's etcd.
func (l *Lab) deleteEtcdPrefix(ctx context.Context, prefix string) error {
	cli, err := l.EtcdClient()
	if err != nil {
		return err
	}
	defer cli.Close()
	if _, err := cli.Delete(ctx, prefix, clientv3.WithPrefix()); err != nil {
		return fmt.Errorf("emptying %s in the lab's etcd: %w", prefix, err)
	}
	return nil
}
