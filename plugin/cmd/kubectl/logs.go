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

package kubectl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	kubectllogs "k8s.io/kubectl/pkg/cmd/logs"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/completion"

	"github.com/fedhq/fed/plugin/cmdline"
	"github.com/fedhq/fed/plugin/fleet"
)

const logsExamples = `
  # Return snapshot logs from pod nginx of member1
  kubectl fed logs nginx -C member1

  # Begin streaming the logs of the ruby container in pod web-1 of member1
  kubectl fed logs -f -c ruby web-1 -C member1

  # Return the last 10 lines of the pods labelled app=nginx in every member cluster,
  # each line prefixed with [CLUSTER/POD/CONTAINER]
  kubectl fed logs -l app=nginx

  # Begin streaming the logs of all containers of the pods labelled app=nginx in member1 and member2
  kubectl fed logs -f -l app=nginx --all-containers -C member1,member2`

// LogsOptions are the inputs of `kubectl fed logs`: kubectl logs' options and the member
// clusters.
type LogsOptions struct {
	genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	Logs        *kubectllogs.LogsOptions
	Clusters    fleet.ClusterFlags

	// Args are kubectl logs' arguments: POD or TYPE/NAME, and a container.
	Args []string

	// cmd is the command whose flags kubectl's own Complete reads.
	cmd *cobra.Command
	// fanOut is set by Validate when the logs come from several members: a selector
	// without exactly one -C.
	fanOut bool
}

// NewCmdLogs is `kubectl fed logs`: kubectl logs in one member with -C, or the logs of the
// pods a selector matches in several members.
func NewCmdLogs(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	cmd, _ := newCmdLogs(configFlags, streams)
	return cmd
}

func newCmdLogs(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) (*cobra.Command, *LogsOptions) {
	o := &LogsOptions{IOStreams: streams, ConfigFlags: configFlags, Logs: kubectllogs.NewLogsOptions(streams)}
	// The factory of the first member named, for completion.
	f := fleet.NewMemberFactory(configFlags, func() string {
		if len(o.Clusters.Clusters) > 0 {
			return o.Clusters.Clusters[0]
		}
		return ""
	})
	kc := kubectllogs.NewCmdLogs(f, streams)
	cmd := &cobra.Command{
		Use:                   "logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER] -C CLUSTER | logs [-f] -l SELECTOR [-C CLUSTER[,CLUSTER…] | --all-clusters]",
		DisableFlagsInUseLine: true,
		Short:                 "Print the logs for a container in a pod of a member cluster",
		Long: kc.Long + `

With -C CLUSTER, kubectl fed logs is kubectl logs in that member cluster. With -l SELECTOR
and no -C (or --all-clusters, or several -C), it prints the logs of the matching pods of
each member cluster, in parallel, each line prefixed with [CLUSTER/POD/CONTAINER].`,
		Example:           strings.TrimPrefix(logsExamples, "\n") + "\n\n" + fedExamples(kc.Example, "logs"),
		ValidArgsFunction: completion.PodResourceNameAndContainerCompletionFunc(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return cmdline.UsageError(cmd, "%s", err.Error())
			}
			return o.Run(cmd.Context())
		},
	}
	o.Logs.AddFlags(cmd)
	o.Clusters.AddFlags(cmd.Flags(), "With -l, print the logs of the matching pods of every member cluster (the default with -l).")
	return cmd, o
}

// Complete takes the arguments and the flags kubectl's checks read. kubectl's own Complete,
// which reads the pods, runs in Run, once the member is known.
func (o *LogsOptions) Complete(cmd *cobra.Command, args []string) error {
	o.cmd, o.Args = cmd, args
	o.Logs.ContainerNameSpecified = cmd.Flag("container").Changed
	o.Logs.TailSpecified = cmd.Flag("tail").Changed
	return nil
}

// Validate checks the command line without asking any server, and decides whether the logs
// come from several members (a selector without exactly one -C).
func (o *LogsOptions) Validate() error {
	o.fanOut = false
	if o.Logs.Selector == "" {
		if o.Clusters.All {
			return fmt.Errorf("--all-clusters needs a selector (-l); for one pod %s", errNoMember)
		}
		_, err := oneMember(&o.Clusters)
		return err
	}
	if !o.Clusters.All && len(o.Clusters.Clusters) == 1 {
		return nil // kubectl logs -l in that member
	}
	if len(o.Args) > 0 {
		return fmt.Errorf("only a selector (-l) or a POD name is allowed")
	}
	// kubectl's own checks of the flags, as its Complete and Validate would make them.
	lo := *o.Logs
	var err error
	if lo.Options, err = lo.ToLogOptions(); err != nil {
		return err
	}
	if err := lo.Validate(); err != nil {
		return err
	}
	o.fanOut = true
	return nil
}

// Run prints the logs: kubectl logs in the one member -C names, or the logs of the pods
// the selector matches in several members.
func (o *LogsOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.fanOut {
		return o.runFanOut(ctx)
	}
	if _, err := o.Clusters.Resolve(ctx, o.ConfigFlags, false); err != nil {
		return err
	}
	f := newMemberFactory(o.ConfigFlags, o.Clusters.Clusters[0])
	if err := o.Logs.Complete(f, o.cmd, o.Args); err != nil {
		return err
	}
	if err := o.Logs.Validate(); err != nil {
		return err
	}
	return o.Logs.RunLogsContext(ctx)
}

// logStream is the log of one container of one pod of one member.
type logStream struct {
	cluster, pod, container string
	request                 rest.ResponseWrapper
}

func (s *logStream) prefix() string {
	return fmt.Sprintf("[%s/%s/%s] ", s.cluster, s.pod, s.container)
}

// containerOfFieldPath reads the container name of a reference kubectl's LogsForObject made.
var containerOfFieldPath = regexp.MustCompile(`spec\.(?:initContainers|containers|ephemeralContainers){(.+)}`)

// runFanOut prints the logs of the pods the selector matches in each member, each line
// prefixed with [CLUSTER/POD/CONTAINER]. The members are asked in parallel; with -f the
// lines are printed as they come, whole; without, each container's log is printed in one
// piece, in the order of the members, pods and containers.
func (o *LogsOptions) runFanOut(ctx context.Context) error {
	clusters, err := o.Clusters.Resolve(ctx, o.ConfigFlags, true)
	if err != nil {
		return err
	}
	host, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	// In each member: kubectl's Complete lists the pods, its LogsForObject chooses the
	// containers (-c, --all-containers, the default-container annotation) and makes the
	// requests with its log options (-f, --tail, --since, --timestamps…).
	results := fleet.FanOut(ctx, host, clusters, func(_ context.Context, cluster string, _ *rest.Config) ([]*logStream, error) {
		lo := *o.Logs
		lo.Object = nil
		lo.IOStreams = genericiooptions.IOStreams{In: o.In, Out: o.Out, ErrOut: io.Discard} // no "No resources found" per member
		f := newMemberFactory(o.ConfigFlags, cluster)
		if err := lo.Complete(f, o.cmd, o.Args); err != nil {
			return nil, err
		}
		requests, err := lo.LogsForObject(f, lo.Object, lo.Options, lo.GetPodTimeout, lo.AllContainers)
		if err != nil {
			return nil, err
		}
		var streams []*logStream
		for ref, req := range requests {
			s := &logStream{cluster: cluster, pod: ref.Name, request: req}
			if m := containerOfFieldPath.FindStringSubmatch(ref.FieldPath); len(m) == 2 {
				s.container = m[1]
			}
			streams = append(streams, s)
		}
		sort.Slice(streams, func(i, j int) bool {
			if streams[i].pod != streams[j].pod {
				return streams[i].pod < streams[j].pod
			}
			return streams[i].container < streams[j].container
		})
		return streams, nil
	})
	var streams []*logStream
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
			fmt.Fprintf(o.ErrOut, "%s: %s\n", r.Cluster, cmdline.ErrorMessage(r.Err))
			continue
		}
		streams = append(streams, r.Value...)
	}
	if len(streams) == 0 && failed == 0 {
		ns, _, _ := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
		fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", ns)
		return nil
	}
	if o.Logs.Follow && len(streams) > o.Logs.MaxFollowConcurrency {
		return fmt.Errorf("you are attempting to follow %d log streams, but maximum allowed concurrency is %d, use --max-log-requests to increase the limit",
			len(streams), o.Logs.MaxFollowConcurrency)
	}
	timeout, err := cmdutil.GetPodRunningTimeoutFlag(o.cmd)
	if err != nil {
		return err
	}
	if n := o.consumeAll(ctx, streams, timeout); n > 0 || failed > 0 {
		return fmt.Errorf("logs failed for %d member clusters and %d containers", failed, n)
	}
	return nil
}

// consumeAll reads the streams in parallel (at most --max-log-requests at once without
// -f) and returns how many failed.
func (o *LogsOptions) consumeAll(ctx context.Context, streams []*logStream, timeout time.Duration) int {
	out := &lineWriter{out: o.Out}
	var buffers []*bytes.Buffer
	if !o.Logs.Follow {
		buffers = make([]*bytes.Buffer, len(streams))
	}
	limit := make(chan struct{}, max(o.Logs.MaxFollowConcurrency, 1))
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
	)
	for i, s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w io.Writer = &prefixWriter{prefix: []byte(s.prefix()), out: out}
			if buffers != nil {
				limit <- struct{}{}
				defer func() { <-limit }()
				buffers[i] = &bytes.Buffer{}
				w = &prefixWriter{prefix: []byte(s.prefix()), out: buffers[i]}
			}
			if err := o.consume(ctx, s.request, w, timeout); err != nil {
				_, _ = out.writeTo(o.ErrOut, []byte(fmt.Sprintf("error: %s/%s/%s: %v\n", s.cluster, s.pod, s.container, err)))
				if !o.Logs.IgnoreLogErrors {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, b := range buffers {
		_, _ = o.Out.Write(b.Bytes())
	}
	return failed
}

// consume reads one log as kubectl logs does: with -f, an error of the API (the container
// not started yet…) is retried until the --pod-running-timeout.
func (o *LogsOptions) consume(ctx context.Context, req rest.ResponseWrapper, w io.Writer, timeout time.Duration) error {
	if !o.Logs.Follow {
		return kubectllogs.DefaultConsumeRequest(ctx, req, w)
	}
	var last error
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		last = kubectllogs.DefaultConsumeRequest(ctx, req, w)
		if last == nil {
			return true, nil
		}
		if _, ok := last.(apierrors.APIStatus); ok && !o.Logs.IgnoreLogErrors {
			return false, nil
		}
		return false, last
	})
	if err != nil && last != nil {
		return last
	}
	return err
}

// prefixWriter writes each chunk it is given, which kubectl's DefaultConsumeRequest makes
// a whole line (or the last bytes of a log), after the prefix and as one line.
type prefixWriter struct {
	prefix []byte
	out    io.Writer
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	line := make([]byte, 0, len(w.prefix)+len(p)+1)
	line = append(append(line, w.prefix...), p...)
	if p[len(p)-1] != '\n' {
		line = append(line, '\n')
	}
	if _, err := w.out.Write(line); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lineWriter serialises the writes of parallel streams, each a whole line.
type lineWriter struct {
	mu  sync.Mutex
	out io.Writer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	return w.writeTo(w.out, p)
}

// writeTo writes p to another writer (standard error) between the lines.
func (w *lineWriter) writeTo(out io.Writer, p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return out.Write(p)
}
