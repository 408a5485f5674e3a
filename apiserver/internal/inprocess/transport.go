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

// Package inprocess serves a client's requests with a server's own handler, in the same
// process: fed's controllers reach fed-apiserver's API this way instead of through its
// loopback address. Each request still goes through the whole handler chain
// (authentication, authorization, priority and fairness, admission, audit, metrics), as
// from the network; what it saves is TLS, HTTP/2's framing and the socket's system calls,
// on every write the controllers make and every event their informers watch.
package inprocess

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/rest"
)

// Config is loopback served by handler: its credentials, none of its TLS. Requests that
// upgrade the connection (exec, port-forward, attach) are not served this way.
func Config(loopback *rest.Config, handler http.Handler) *rest.Config {
	c := rest.CopyConfig(loopback)
	c.TLSClientConfig = rest.TLSClientConfig{}
	c.Transport = &Transport{Handler: handler}
	return c
}

// Transport is an http.RoundTripper that serves each request with Handler.
type Transport struct {
	Handler http.Handler
}

var _ http.RoundTripper = &Transport{}

// RoundTrip returns once the handler has written the response's header; the body streams
// from the handler as it writes it (a watch's events as they come). Closing the body, or
// cancelling the request's context, cancels the handler's.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	// A context of its own, as a server's request has: only the client's cancellation
	// carries over, none of its values (an audit event of a request being served, say).
	ctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(req.Context(), cancel)
	in := req.Clone(ctx)
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	in.Host = req.URL.Host
	in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	if in.Body == nil {
		in.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	// A client gone, though it neither reads nor closes the body, fails the handler's
	// next write, and its own reads get why, as over a connection.
	context.AfterFunc(ctx, func() { _ = pw.CloseWithError(context.Cause(ctx)) })
	w := &responseWriter{header: http.Header{}, body: pw, written: make(chan struct{}), done: ctx.Done()}
	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				// As net/http's server: ErrAbortHandler ends the response quietly.
				if r != http.ErrAbortHandler {
					utilruntime.HandleError(fmt.Errorf("in-process request %s %s: %v", req.Method, req.URL.Path, r))
				}
				err = fmt.Errorf("in-process request %s %s aborted", req.Method, req.URL.Path)
				w.WriteHeader(http.StatusInternalServerError)
			}
			w.WriteHeader(http.StatusOK) // a handler that wrote nothing
			_ = pw.CloseWithError(err)   // nil: io.EOF for the reader; the first close wins
			cancel()
			stop()
			_ = in.Body.Close() // as a RoundTripper must, and net/http's server does
		}()
		t.Handler.ServeHTTP(w, in)
	}()
	select {
	case <-w.written:
	case <-req.Context().Done():
		cancel()
		return nil, req.Context().Err()
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          &body{PipeReader: pr, cancel: cancel},
		ContentLength: -1,
		Request:       req,
	}, nil
}

// body cancels the handler's context when the client closes it.
type body struct {
	*io.PipeReader
	cancel context.CancelFunc
}

func (b *body) Close() error {
	b.cancel()
	return b.PipeReader.CloseWithError(errClientClosed)
}

var errClientClosed = errors.New("the in-process client closed the response body")

// responseWriter hands what the handler writes to the client's body as it is written.
// Flusher and CloseNotifier are what the apiserver's filters need of an HTTP/2 writer to
// serve watches.
type responseWriter struct {
	header  http.Header
	body    *io.PipeWriter
	once    sync.Once
	status  int
	sent    http.Header // the header as of WriteHeader
	written chan struct{}
	done    <-chan struct{}
}

var (
	_ http.Flusher       = &responseWriter{}
	_ http.CloseNotifier = &responseWriter{} //nolint:staticcheck // the apiserver's writer wrappers test for it
)

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(status int) {
	if status >= 100 && status < 200 {
		return // informational: nothing the client waits for
	}
	w.once.Do(func() {
		w.status, w.sent = status, w.header.Clone()
		close(w.written)
	})
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// Flush sends the header if it is not yet: what is written reaches the client at once.
func (w *responseWriter) Flush() { w.WriteHeader(http.StatusOK) }

// CloseNotify is closed once the client is gone: its context is done, or it closed the body.
func (w *responseWriter) CloseNotify() <-chan bool {
	ch := make(chan bool, 1)
	go func() {
		<-w.done
		ch <- true
	}()
	return ch
}
